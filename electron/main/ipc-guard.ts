/*
 * What main accepts from the renderer over IPC. Every message must come from the main
 * frame of the app window showing our own origin (a stored page in a frame, or anything
 * the window was tricked into loading, gets nothing), name a known method and carry an
 * input that passes the method's schema (the check every transport makes, service/schema.ts).
 * No Electron import: unit-tested in Node.
 */
import type { ApiMethod } from '../../crawler/protocol/api.ts';
import type { ErrorCode } from '../../crawler/protocol/error-codes.ts';
import { checkCall } from '../../crawler/service/schema.ts';
import type { ApiReply } from '../../crawler/protocol/wire.ts';

/** The sending frame as main sees it; null when Electron no longer knows the frame. */
export interface IpcSender {
  url: string;
  isMainFrame: boolean;
}

export type IpcRefusal = { ok: false; reply: Extract<ApiReply, { ok: false }> };
export type IpcCallCheck = { ok: true; method: ApiMethod; input: unknown } | IpcRefusal;
export type ExportIdCheck = { ok: true; exportId: string } | IpcRefusal;

const EXPORT_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** scheme://host for any URL, special scheme or not (URL.origin is "null" for custom schemes). */
function originOf(raw: string): string | undefined {
  const url = URL.parse(raw);
  return url === null || url.host === '' ? undefined : `${url.protocol}//${url.host}`;
}

function refuse(code: ErrorCode, message: string): IpcRefusal {
  return { ok: false, reply: { ok: false, error: { code, message } } };
}

/** Undefined when the sender may talk to main, else the refusal to send back. */
export function checkIpcSender(sender: IpcSender | null, expectedOrigin: string): IpcRefusal | undefined {
  if (sender === null) return refuse('FORBIDDEN', 'The sending frame is gone.');
  if (!sender.isMainFrame) return refuse('FORBIDDEN', 'Only the app window itself may call the service.');
  if (originOf(sender.url) !== expectedOrigin) return refuse('FORBIDDEN', 'The sender is not the app.');
  return undefined;
}

export function checkIpcCall(sender: IpcSender | null, expectedOrigin: string, method: unknown, input: unknown): IpcCallCheck {
  const forbidden = checkIpcSender(sender, expectedOrigin);
  if (forbidden !== undefined) return forbidden;
  const checked = checkCall(method, input);
  return checked.ok ? checked : { ok: false, reply: checked };
}

export function checkExportId(sender: IpcSender | null, expectedOrigin: string, exportId: unknown): ExportIdCheck {
  const forbidden = checkIpcSender(sender, expectedOrigin);
  if (forbidden !== undefined) return forbidden;
  if (typeof exportId !== 'string' || !EXPORT_ID.test(exportId)) return refuse('INVALID_INPUT', 'Not an export id.');
  return { ok: true, exportId };
}
