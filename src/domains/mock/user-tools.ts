import { z } from "zod";
import { defineTool } from "../../env/tool.js";
import { NotificationSchema, type MockUserDb } from "./db-schema.js";

export const checkNotifications = defineTool({
  name: "check_notifications",
  description: "Show every notification in the customer's inbox.",
  kind: "read",
  parameters: z.object({}),
  returns: z.array(NotificationSchema),
  run(db: MockUserDb) {
    return [...db.notifications.values()];
  },
});

export const dismissNotification = defineTool({
  name: "dismiss_notification",
  description: "Mark a notification as read.",
  kind: "write",
  parameters: z.object({ notification_id: z.string().describe("ID of the notification") }),
  run(db: MockUserDb, { notification_id }) {
    const notification = db.notifications.get(notification_id);
    if (!notification) throw new Error(`Notification ${notification_id} not found`);
    notification.status = "read";
    return `Notification ${notification_id} dismissed`;
  },
});

/** Initialization helper: put a new unread notification in the inbox. */
export const addNotification = {
  returns: NotificationSchema,
  run(db: MockUserDb, args: Record<string, unknown>) {
    const notification = {
      notification_id: String(args.notification_id),
      message: String(args.message),
      status: "unread" as const,
      task_id: args.task_id === undefined || args.task_id === null ? null : String(args.task_id),
    };
    db.notifications.set(notification.notification_id, notification);
    return notification;
  },
};

/** Env assertion: the notification has the expected status. */
export function assertNotificationStatus(db: MockUserDb, args: Record<string, unknown>): boolean {
  const notification = db.notifications.get(String(args.notification_id));
  if (!notification) throw new Error(`Notification ${String(args.notification_id)} not found`);
  return notification.status === args.expected_status;
}
