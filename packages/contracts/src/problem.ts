import type { FromSchema } from "json-schema-to-ts";
import { ErrorCode } from "./error-codes.js";

/** RFC 9457 problem details, as every app answers errors (`application/problem+json`). */
export const ProblemSchema = {
  $id: "Problem",
  type: "object",
  required: ["type", "title", "status", "detail", "code", "requestId"],
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer", minimum: 400, maximum: 599 },
    detail: { type: "string" },
    code: { type: "string", enum: Object.values(ErrorCode) },
    requestId: { type: "string" },
    instance: { type: "string" },
    errors: {
      type: "array",
      items: {
        type: "object",
        required: ["pointer", "detail"],
        properties: {
          pointer: { type: "string", description: "JSON pointer (RFC 6901) of the bad field" },
          detail: { type: "string" },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: true,
} as const;

export type Problem = FromSchema<typeof ProblemSchema>;
export type FieldError = NonNullable<Problem["errors"]>[number];
