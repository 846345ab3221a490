import { ApiError, notFound } from "../../http/errors.js";
import type { NodeState } from "../nodes/index.js";
import type { ProbeDeps } from "./probe-deps.js";
import { findTask, type TaskRecord } from "./repo.js";
import {
  findLiveShare,
  liveShareOfTask,
  publishShare,
  revokeShare,
  SHARE_ID_PATTERN,
  type ShareRecord,
} from "./shares-repo.js";
import { type TaskDocument, toTaskDocument } from "./task-document.js";

/** Share links and exports of probe tasks (issue #30 item 5, docs/shares.md). */
export interface SharesService {
  /** Publishes the owner's task (idempotent: its live share if it has one). 404 for anyone else's. */
  publish(taskId: string, owner: string): Promise<ShareRecord>;
  /**
   * Whether `viewer` owns the task (and so may publish it) and its live share if so. 404 for a task the
   * viewer cannot read (another account's); an anonymous task is readable but nobody's to share.
   */
  current(taskId: string, viewer: string): Promise<{ shareable: boolean; share: ShareRecord | null }>;
  /** Revokes the owner's share of a task: its link answers 404 from now on. 404 when none is live. */
  revoke(taskId: string, owner: string): Promise<void>;
  /** What a share link shows, to anyone; 404 for an unknown or revoked share. */
  shared(shareId: string, form: "a" | "b"): Promise<{ share: ShareRecord; document: TaskDocument }>;
  /** The task as a document (spec, node metadata, signatures), as `viewer` may read it (404 otherwise). */
  export(taskId: string, viewer: string | undefined, form: "a" | "b"): Promise<TaskDocument>;
}

/** How long `publish` waits for a task just answered (Form B writes in batches) to reach the database. */
const STORED_WAIT_MS = 3_000;

export function sharesService(
  deps: ProbeDeps,
  get: (id: string, viewer: string | undefined) => Promise<TaskRecord>,
): SharesService {
  const nodesById = async (): Promise<Map<string, NodeState>> =>
    new Map((await deps.directory.list()).map((n) => [n.id, n]));

  const owned = async (taskId: string, owner: string): Promise<TaskRecord> => {
    const task = await get(taskId, owner);
    // An anonymous task is readable by anyone holding its id, but nobody owns it to publish it.
    if (task.owner_id !== owner) throw notFound(`probe task ${taskId}`);
    return task;
  };

  return {
    async publish(taskId, owner) {
      await owned(taskId, owner);
      const until = Date.now() + STORED_WAIT_MS;
      while (!(await findTask(deps.db, taskId))) {
        if (Date.now() >= until)
          throw new ApiError("conflict", `probe task ${taskId} is not stored yet; try again in a moment`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return publishShare(deps.db, taskId, owner);
    },
    async current(taskId, viewer) {
      const task = await get(taskId, viewer);
      if (task.owner_id !== viewer) return { shareable: false, share: null };
      return { shareable: true, share: (await liveShareOfTask(deps.db, taskId)) ?? null };
    },
    async revoke(taskId, owner) {
      await owned(taskId, owner);
      if (!(await revokeShare(deps.db, taskId))) throw notFound(`share of probe task ${taskId}`);
    },
    async shared(shareId, form) {
      const missing = () => notFound("share");
      if (!SHARE_ID_PATTERN.test(shareId)) throw missing();
      const share = await findLiveShare(deps.db, shareId);
      const task = share && (await findTask(deps.db, share.task_id));
      if (!share || !task) throw missing();
      return { share, document: toTaskDocument(task, form, await nodesById()) };
    },
    async export(taskId, viewer, form) {
      const task = await get(taskId, viewer);
      return toTaskDocument(task, form, await nodesById());
    },
  };
}
