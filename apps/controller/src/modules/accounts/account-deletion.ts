import type { Transaction } from "kysely";
import type { Database } from "../../db/schema.js";
import type { Principal } from "../../http/context.js";
import { ApiError } from "../../http/errors.js";
import { announceAccountChange } from "./account-changes.js";
import type { AccountsContext } from "./context.js";
import { checkCurrentPassword, requireLoginSession } from "./current-password.js";
import * as repo from "./repo.js";

/**
 * What another module does when an account is deleted; the composition root joins each one
 * (`AccountsModule.onDelete`), so accounts knows no other module.
 */
export interface DeletionParticipant {
  /** For logs: which module refused or failed. */
  readonly name: string;
  /**
   * Work outside the database that must succeed before anything is deleted (the payment provider's
   * subscription is ended). Throwing refuses the deletion: nothing is deleted, the caller sees the error.
   */
  prepare?(userId: string): Promise<void>;
  /**
   * In the deletion's transaction: the module's rows of the account that no foreign key to `users`
   * removes. May answer what to do once it committed (this process's caches).
   */
  erase?(tx: Transaction<Database>, userId: string): Promise<(() => void) | undefined>;
}

function goodbyeMail(email: string) {
  return {
    channel: "email" as const,
    destination: email,
    payload: {
      subject: "Your Vantage account was deleted",
      text:
        "The Vantage account of this address was deleted, as asked with its password. Its monitors, " +
        "alert channels and policies, status pages, API keys and tokens, probe history and billing " +
        "records are gone, and a paid subscription was cancelled at once: no further charge follows.\n\n" +
        "If you did not do this, someone knew your password: reply to your operator. The address can " +
        "register again at any time.\n",
    },
  };
}

/**
 * Deletes the signed-in account, asked by a login session with the current password (the same checks,
 * limits and answers as a password change). The participants' `prepare` runs first (a failure there
 * deletes nothing); then, in one transaction, their `erase`, the user row (every `on delete cascade`
 * table with it), the confirmation mail to the address the account had, and the NOTIFY that makes every
 * controller drop the account's cached credentials.
 */
export async function deleteAccount(
  ctx: AccountsContext,
  participants: readonly DeletionParticipant[],
  principal: Principal,
  input: { password: string },
): Promise<void> {
  requireLoginSession(principal, "delete the account");
  const user = await checkCurrentPassword(ctx, principal.userId, input.password, "body.password");
  for (const p of participants) await p.prepare?.(user.id);
  const afterCommit = await ctx.db.transaction().execute(async (tx) => {
    const done: (() => void)[] = [];
    for (const p of participants) {
      const then = await p.erase?.(tx, user.id);
      if (then) done.push(then);
    }
    // Deleted meanwhile (a second tab): the other request did it all, mail included.
    if (!(await repo.deleteUser(tx, user.id))) throw new ApiError("unauthorized", "authentication required");
    await ctx.delivery.enqueue(tx, goodbyeMail(user.email));
    await announceAccountChange(tx, user.id);
    return done;
  });
  ctx.credentials.forgetUser(user.id);
  for (const then of afterCommit) then();
  ctx.log.info({ user_id: user.id }, "account deleted");
}
