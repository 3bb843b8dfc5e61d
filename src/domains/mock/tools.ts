import { z } from "zod";
import { defineTool } from "../../env/tool.js";
import { MockTaskSchema, MockUserSchema, TaskStatusSchema, type MockDb } from "./db-schema.js";

export const createTask = defineTool({
  name: "create_task",
  description: "Create a new task for a user and return it.",
  kind: "write",
  parameters: z.object({
    user_id: z.string().describe("ID of the user who owns the task"),
    title: z.string().describe("Title of the task"),
    description: z.string().nullable().default(null).describe("Optional longer description"),
  }),
  returns: MockTaskSchema,
  run(db: MockDb, { user_id, title, description }) {
    const user = db.users.get(user_id);
    if (!user) throw new Error(`User ${user_id} not found`);
    const task_id = `task_${db.tasks.size + 1}`;
    const task = { task_id, title, description, status: "pending" as const };
    db.tasks.set(task_id, task);
    user.tasks.push(task_id);
    return task;
  },
});

export const getUsers = defineTool({
  name: "get_users",
  description: "List every user with the ids of their tasks.",
  kind: "read",
  parameters: z.object({}),
  returns: z.array(MockUserSchema),
  run(db: MockDb) {
    return [...db.users.values()];
  },
});

export const updateTaskStatus = defineTool({
  name: "update_task_status",
  description: "Set a task's status to pending or completed.",
  kind: "write",
  parameters: z.object({
    task_id: z.string().describe("ID of the task to change"),
    status: TaskStatusSchema.describe("The new status"),
  }),
  returns: MockTaskSchema,
  run(db: MockDb, { task_id, status }) {
    const task = db.tasks.get(task_id);
    if (!task) throw new Error(`Task ${task_id} not found`);
    task.status = status;
    return task;
  },
});

export const transferToHumanAgents = defineTool({
  name: "transfer_to_human_agents",
  description:
    "Hand the customer over to a human agent with a summary of their issue. Only do this when the customer asks for a human, or when the policy and tools do not let you solve the issue.",
  kind: "generic",
  parameters: z.object({ summary: z.string().describe("Summary of the customer's issue") }),
  run() {
    return "Transfer successful";
  },
});

/** Env assertion: the task has the expected status. */
export function assertTaskStatus(db: MockDb, args: Record<string, unknown>): boolean {
  const task = db.tasks.get(String(args.task_id));
  if (!task) throw new Error(`Task ${String(args.task_id)} not found`);
  return task.status === args.expected_status;
}
