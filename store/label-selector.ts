// Kubernetes label selectors: `a=b,c!=d,e in (x,y),f notin (z),g,!h`.
// Same grammar and meaning as apimachinery's `labels.Parse`, minus the numeric `<`/`>` operators
// that sandbay never uses. A malformed selector is a BadRequest, never a silent match-all.
import { StoreError } from './store.ts';

export type Operator = 'eq' | 'neq' | 'in' | 'notin' | 'exists' | 'notexists';

export interface Requirement {
  key: string;
  op: Operator;
  values: string[];
}

export interface LabelSelector {
  readonly requirements: readonly Requirement[];
  /** True when every requirement holds for these labels (an empty selector matches everything). */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function bad(selector: string, why: string): StoreError {
  return new StoreError('BadRequest', `invalid label selector "${selector}": ${why}`);
}

/** A label key: an optional DNS subdomain prefix and `/`, then a name of at most 63 characters. */
export function isLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const prefixOk = prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
  return prefixOk && name.length <= 63 && NAME.test(name);
}

/** A label value: empty, or at most 63 alphanumerics with `-_.` inside. */
export function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && NAME.test(value));
}

function checkKey(selector: string, key: string): void {
  if (!isLabelKey(key)) throw bad(selector, `bad key "${key}"`);
}

function checkValue(selector: string, value: string): void {
  if (!isLabelValue(value)) throw bad(selector, `bad value "${value}"`);
}

/** Splits into words and the punctuation `( ) , = == != !`. */
function tokenize(selector: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < selector.length) {
    const c = selector[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '=' || c === '!') {
      const two = selector.slice(i, i + 2);
      const op = two === '==' || two === '!=' ? two : c;
      tokens.push(op);
      i += op.length;
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push(c);
      i++;
    } else {
      let j = i;
      while (j < selector.length && !/[\s=!(),]/.test(selector[j] as string)) j++;
      tokens.push(selector.slice(i, j));
      i = j;
    }
  }
  return tokens;
}

const PUNCTUATION = new Set(['(', ')', ',', '=', '==', '!=', '!']);

export function parseLabelSelector(selector: string): LabelSelector {
  const tokens = tokenize(selector);
  const requirements: Requirement[] = [];
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  const word = (what: string): string => {
    const t = tokens[pos++];
    if (t === undefined || PUNCTUATION.has(t)) throw bad(selector, `expected ${what}`);
    return t;
  };
  const expect = (t: string): void => {
    if (tokens[pos++] !== t) throw bad(selector, `expected "${t}"`);
  };
  // A value may be empty (`a=`), so an operator followed by `,` or the end means "".
  const value = (): string => {
    const t = peek();
    if (t === undefined || t === ',' || t === ')') return '';
    const v = word('a value');
    checkValue(selector, v);
    return v;
  };
  const set = (): string[] => {
    expect('(');
    const values = [value()];
    while (peek() === ',') {
      pos++;
      values.push(value());
    }
    expect(')');
    return values;
  };

  const requirement = (key: string): Requirement => {
    const op = peek();
    if (op === undefined || op === ',') return { key, op: 'exists', values: [] };
    pos++;
    if (op === '=' || op === '==') return { key, op: 'eq', values: [value()] };
    if (op === '!=') return { key, op: 'neq', values: [value()] };
    if (op === 'in' || op === 'notin') return { key, op, values: set() };
    throw bad(selector, `unknown operator "${op}"`);
  };

  while (pos < tokens.length) {
    if (peek() === '!') {
      pos++;
      const key = word('a key after "!"');
      checkKey(selector, key);
      requirements.push({ key, op: 'notexists', values: [] });
    } else {
      const key = word('a key');
      checkKey(selector, key);
      requirements.push(requirement(key));
    }
    if (pos < tokens.length) expect(',');
    if (pos === tokens.length && tokens[pos - 1] === ',') throw bad(selector, 'trailing ","');
  }
  return { requirements, matches: (labels) => requirements.every((r) => holds(r, labels ?? {})) };
}

function holds(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const v = labels[r.key];
  switch (r.op) {
    case 'exists':
      return has;
    case 'notexists':
      return !has;
    case 'eq':
    case 'in':
      return has && r.values.includes(v as string);
    case 'neq':
    case 'notin':
      // Kubernetes: `a!=b` and `a notin (b)` also match objects without the label.
      return !has || !r.values.includes(v as string);
  }
}
