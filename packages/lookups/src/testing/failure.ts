import { expect } from "vitest";
import { LookupError } from "../types.js";

/** The LookupError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function failure(promise: Promise<unknown>): Promise<LookupError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a LookupError, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LookupError);
  return error as LookupError;
}
