// resourceVersions are decimal strings of one store-wide counter (store.ts). They are compared as
// numbers of any length; a version that is not decimal (an opaque one) never counts as older.

const DECIMAL = /^\d+$/;

/** Negative when `a` is older than `b`, zero when equal or incomparable, positive when newer. */
export function compareResourceVersions(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined || !DECIMAL.test(a) || !DECIMAL.test(b)) return 0;
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** True when `rv` is at or past `target`. */
export function reached(rv: string | undefined, target: string | undefined): boolean {
  if (target === undefined) return true;
  if (rv === undefined) return false;
  return compareResourceVersions(rv, target) >= 0;
}
