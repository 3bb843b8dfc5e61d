import { z } from "zod";
import { pyDict } from "../../env/schema-helpers.js";

export const TaskStatusSchema = z.enum(["pending", "completed"]);

export const MockTaskSchema = z.object({
  task_id: z.string(),
  title: z.string(),
  description: z.string().nullable().default(null),
  status: TaskStatusSchema,
});
export type MockTask = z.infer<typeof MockTaskSchema>;

export const MockUserSchema = z.object({
  user_id: z.string(),
  name: z.string(),
  tasks: z.array(z.string()),
});

export const MockDbSchema = z.object({
  tasks: pyDict(MockTaskSchema),
  users: pyDict(MockUserSchema),
});
export type MockDb = z.infer<typeof MockDbSchema>;

export const NotificationSchema = z.object({
  notification_id: z.string(),
  message: z.string(),
  status: z.enum(["unread", "read"]),
  task_id: z.string().nullable().default(null),
});

export const MockUserDbSchema = z.object({
  notifications: pyDict(NotificationSchema),
});
export type MockUserDb = z.infer<typeof MockUserDbSchema>;
