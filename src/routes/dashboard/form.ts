// Reading a posted form. The body's parser (Response.formData) throws a TypeError when the body
// does not match its content type, e.g. multipart/form-data without a boundary: that is bad
// input from the client, so it becomes the dashboard's 400 rather than an internal error.
import type { Context } from "hono";
import { AppError } from "../../lib/errors";

export async function readForm(c: Context) {
  try {
    return await c.req.parseBody();
  } catch (error) {
    if (error instanceof TypeError) {
      throw new AppError("validation_error", "the form could not be read (its body does not match its content type): reload the page and submit it again");
    }
    throw error;
  }
}
