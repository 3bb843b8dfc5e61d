import { defineDomain } from "../../env/domain.js";
import { TAU2_TYPES } from "./tau2-types.js";
import { MockDbSchema, MockUserDbSchema, type MockDb, type MockUserDb } from "./db-schema.js";
import { assertTaskStatus, createTask, getUsers, transferToHumanAgents, updateTaskStatus } from "./tools.js";
import {
  addNotification,
  assertNotificationStatus,
  checkNotifications,
  dismissNotification,
} from "./user-tools.js";

/** τ²-bench's tiny test domain: tasks owned by users, and a user-side notification inbox. */
export const mockDomain = defineDomain<MockDb, MockUserDb>({
  name: "mock",
  description:
    "τ²-bench's test domain: users, their to-do tasks, and a notification inbox on the user's side.",
  agent: {
    className: "MockTools",
    db: MockDbSchema,
    tools: [createTask, getUsers, updateTaskStatus, transferToHumanAgents],
    functions: { assert_task_status: assertTaskStatus },
  },
  user: {
    className: "MockUserTools",
    db: MockUserDbSchema,
    tools: [checkNotifications, dismissNotification],
    functions: { add_notification: addNotification, assert_notification_status: assertNotificationStatus },
  },
  tau2: {
    agentTools: "src/tau2/domains/mock/tools.py",
    userTools: "src/tau2/domains/mock/user_tools.py",
    types: TAU2_TYPES,
  },
  data: {
    folder: "mock",
    db: "db.json",
    userDb: "user_db.json",
    tasks: "tasks.json",
    splits: "split_tasks.json",
    policy: "policy.md",
    soloPolicy: "policy_solo.md",
  },
});
