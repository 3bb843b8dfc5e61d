import { zValidator } from "@hono/zod-validator";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { z } from "zod";

/** A zod validator whose failures answer 400 `{code: "invalid_request", message}` naming each problem. */
export function validate<T extends z.ZodType, Target extends "json" | "query" | "param">(
  target: Target,
  schema: T,
) {
  return zValidator(target, schema, (result, c) => {
    if (!result.success) {
      const where = target === "json" ? "body" : target;
      const message = result.error.issues
        .map(
          (issue) => `${where}${issue.path.length > 0 ? `.${issue.path.join(".")}` : ""}: ${issue.message}`,
        )
        .join("; ");
      return c.json({ code: "invalid_request", message }, 400);
    }
    return undefined;
  });
}

/** Largest JSON body the playground and run endpoints read: a message is at most 4,000 characters. */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

/** A larger body is refused with 413 before it is read in full, so no client can fill the memory. */
export const limitJsonBody: MiddlewareHandler = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: (c) =>
    c.json(
      {
        code: "request_too_large",
        message: `the request body is larger than ${MAX_JSON_BODY_BYTES} bytes`,
      },
      413,
    ),
});

/** JSON endpoints say so when the body is not JSON (instead of validating an empty object). */
export const requireJson: MiddlewareHandler = async (c, next) => {
  const type = c.req.header("Content-Type") ?? "";
  if (!/^application\/([\w.-]+\+)?json\b/i.test(type.trim())) {
    return c.json(
      {
        code: "invalid_request",
        message: `send a JSON body with Content-Type: application/json (got "${type || "none"}")`,
      },
      400,
    );
  }
  await next();
};
