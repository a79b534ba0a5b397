// The scheduler's error codes and the HTTP status each one answers with. The API imports this
// registry so that a refusal decided by the scheduler (at once in the API, or later by the sandbox
// reconciler through `Sandbox.status.reason`) always maps to the same status. docs/capacity.md
// explains each choice; a test checks that every code here is documented there.

export const SCHEDULE_ERRORS = {
  /** 422: cpu or memory below the smallest sandbox (2 vCPU / 4 GiB) or not a whole number. */
  invalid_size: { status: 422, summary: 'cpu must be an integer ≥ 2 and memory_gib an integer ≥ 4' },
  /** 422: disk_gib differs from the image's disk size (disks are not resized at create). */
  invalid_disk_size: { status: 422, summary: "disk_gib must equal the image's disk size" },
  /** 422: larger than the whole Mac; no amount of waiting or deleting makes it fit. */
  resources_exceed_mac: { status: 422, summary: 'the requested size is larger than the whole Mac' },
  /** 409: larger than what the caller's other sandboxes leave free; deleting one makes room. */
  insufficient_capacity: {
    status: 409,
    summary: "the requested size is larger than what the caller's other sandboxes leave free",
  },
  /** 409: every Mac already runs its maximum of sandboxes (2 split, 1 whole). */
  sandbox_limit_reached: { status: 409, summary: 'every Mac already runs its maximum of sandboxes' },
  /** 503 (spec): it would fit, but no VM is free right now (cloning, stopped for a resize, host down). */
  no_warm_vm: { status: 503, summary: 'no warm VM is available right now; retry shortly' },
  /** 422: the request is pinned (`host`) to a Mac that is not one of those it may run on. */
  host_not_reserved: {
    status: 422,
    summary: "host names none of the Macs of the caller's reservation (by Mini name or IP)",
  },
  /** 409 (spec): the Macs lack the snapshot's base image, or its disk size differs. */
  snapshot_base_unavailable: {
    status: 409,
    summary: "the reservation's Macs lack the snapshot's base image or its disk size",
  },
} as const satisfies Record<string, { status: number; summary: string }>;

export type ScheduleErrorCode = keyof typeof SCHEDULE_ERRORS;

export const SCHEDULE_ERROR_CODES = Object.keys(SCHEDULE_ERRORS) as ScheduleErrorCode[];

/** The HTTP status of a scheduler error code. */
export function scheduleErrorStatus(code: ScheduleErrorCode): number {
  return SCHEDULE_ERRORS[code].status;
}

/** True when `code` is one of the scheduler's codes (e.g. read back from `Sandbox.status.reason`). */
export function isScheduleErrorCode(code: string): code is ScheduleErrorCode {
  return Object.hasOwn(SCHEDULE_ERRORS, code);
}
