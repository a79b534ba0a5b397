// A task's grader as Harbor's `tests/test.sh`: a POSIX shell script that runs inside the environment
// after the agent, computes the same reward sandbay's grader runner computes
// (operator/evaluation/graders.ts), and writes it where Harbor's verifier reads it:
// `/logs/verifier/reward.txt` (Harbor's EnvironmentPaths). A guest whose `/logs` cannot be written
// (sandbay's VMs run as an unprivileged user; macOS has a read-only `/`) writes under
// `/tmp/harbor/logs`, the root the sandbay environment maps `/logs` to (docs/agents.md), as
// use.computer's Harbor environment does on macOS.
//
// Each kind of check becomes shell: a `command` check runs its command under the user's shell with
// its deadline and tests `expect`; a `file` check reads the file. Text is compared and patterns are
// matched with perl (macOS and Debian both ship it; RE2's syntax is nearly a subset of Perl's), JSON
// read with perl's core JSON::PP. What a shell inside the guest cannot compute is refused by name
// (TaskNotExportable): a `window` check (sandbay reads the window tree from outside the VM: X11 and
// AT-SPI, or Tart's accessibility bridge) and JSONPath beyond names and indexes.
//
// Every value from the task reaches the script as one single-quoted shell word (shellQuote) and is
// passed to perl as an argument, never spliced into code.
import type { CommandCheck, FileCheck, Grader, GraderCheck, Task } from '../../../crds/index.ts';
import { shellQuote } from '../../../hosts/linux/ssh-client.ts';
import { COMMAND_CHECK_TIMEOUT_S, FILE_CHECK_MAX_BYTES } from '../../../operator/evaluation/graders.ts';
import { taskGrader } from '../../../operator/evaluation/task-evaluation.ts';
import { TaskNotExportable } from './errors.ts';

/** The exit status of a command killed by perl's alarm (128 + SIGALRM). */
const TIMED_OUT = 142;

/** Helpers every test.sh defines: the perl parts take the task's values as arguments only. */
const PRELUDE = String.raw`set -u
# Where Harbor's verifier reads the reward: /logs/verifier, or /tmp/harbor/logs/verifier where /logs
# cannot be written (the sandbay environment maps /logs there).
logs=/logs
{ mkdir -p "$logs/verifier" && [ -w "$logs/verifier" ]; } 2>/dev/null || logs=/tmp/harbor/logs
mkdir -p "$logs/verifier" || exit 1
# Relative paths are in the user's home, as sandbay's checks read them.
cd "$HOME" 2>/dev/null || cd /
sb_tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$sb_tmp"' EXIT
sb_shell=${'$'}{SHELL:-/bin/sh}
: >"$sb_tmp/results"

# sb_run SECONDS COMMAND: runs the command line under the user's shell; exit 142 when it timed out.
sb_run() {
  perl -e 'alarm shift; exec @ARGV or exit 127' "$1" "$sb_shell" -c "$2" >"$sb_tmp/out" 2>"$sb_tmp/err"
}
# sb_text MODE FILE WANT IGNORE_CASE: MODE contains, equals (trailing newlines ignored) or matches
# (a multi-line regular expression); exit 0 when it holds.
sb_text() {
  perl -e '
    my ($mode, $file, $want, $ic) = @ARGV;
    open(my $fh, "<", $file) or exit 2; binmode $fh; local $/; my $t = <$fh>; $t = "" unless defined $t;
    utf8::decode($t); utf8::decode($want);
    if ($mode eq "matches") { my $re = $ic ? qr/$want/mi : qr/$want/m; exit($t =~ $re ? 0 : 1) }
    if ($ic) { $t = lc $t; $want = lc $want }
    if ($mode eq "equals") { s/[\r\n]+\z// for $t, $want; exit($t eq $want ? 0 : 1) }
    exit(index($t, $want) >= 0 ? 0 : 1);' "$@"
}
# sb_stdout_reward: the number on the last line of stdout (0 to 1); otherwise prints that line as
# JSON and exits 1.
sb_stdout_reward() {
  perl -MJSON::PP -e '
    open(my $fh, "<", $ARGV[0]) or exit 2; local $/; my $t = <$fh>; $t = "" unless defined $t;
    $t =~ s/^\s+|\s+\z//g; my @lines = split /\n/, $t, -1; my $last = @lines ? $lines[-1] : "";
    $last =~ s/^\s+|\s+\z//g;
    if ($last =~ /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\z/ && $last >= 0 && $last <= 1) { print 0 + $last; exit 0 }
    print JSON::PP->new->allow_nonref->encode($last); exit 1;' "$sb_tmp/out"
}
# sb_json FILE SEGMENTS [EXPECTED]: the value at the path (a JSON array of names and indexes);
# exit 0 when it is there (and equals EXPECTED), 1 when it differs (printing it), 2 when the file is
# not JSON (printing why), 3 when the path selects nothing.
sb_json() {
  perl -MJSON::PP -e '
    my ($file, $segs, $want) = @ARGV;
    my $j = JSON::PP->new->utf8->allow_nonref;
    open(my $fh, "<", $file) or exit 2; binmode $fh; local $/; my $t = <$fh>;
    my $v = eval { $j->decode(defined $t ? $t : "") };
    if ($@) { (my $e = $@) =~ s/ at -e line.*//s; print $e; exit 2 }
    for my $s (@{ $j->decode($segs) }) {
      if (ref $v eq "HASH") { exit 3 unless exists $v->{$s}; $v = $v->{$s} }
      elsif (ref $v eq "ARRAY") { exit 3 unless $s =~ /^\d+\z/ && $s < @$v; $v = $v->[$s] }
      else { exit 3 }
    }
    exit 0 unless defined $want;
    my $c = JSON::PP->new->utf8->canonical->allow_nonref;
    my $got = $c->encode($v);
    exit 0 if $got eq $c->encode($j->decode($want));
    print $got; exit 1;' "$@"
}
# sb_result INDEX PASSED REWARD WEIGHT MESSAGE: one check's outcome, reported and kept.
sb_result() {
  if [ "$2" = 1 ]; then r=$3; word=passed; else r=0; word=failed; fi
  printf 'check %s %s (reward %s): %s\n' "$1" "$word" "$r" "$5"
  printf '%s %s\n' "$r" "$4" >>"$sb_tmp/results"
}
`;

/** What a check is called in messages: `check 2 (file, "saved")`. */
function checkLabel(check: GraderCheck, index: number): string {
  return `check ${index} (${check.type}${check.name === undefined ? '' : `, ${JSON.stringify(check.name)}`})`;
}

const q = shellQuote;
const flag = (b: boolean | undefined) => (b ? '1' : '0');
const cut = (s: string) => JSON.stringify(s.slice(0, 200));

/** `$.a.b[0]`, `$['a']`: the names and indexes of a JSONPath of that form; undefined for any other. */
export function jsonPathSegments(path: string): (string | number)[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const segment = /^(?:\.([^.[\]*@?()'"\s,:]+)|\[(\d+)\]|\['([^'\\]*)'\]|\["([^"\\]*)"\])/;
  const out: (string | number)[] = [];
  let rest = path.slice(1);
  while (rest !== '') {
    const m = segment.exec(rest);
    if (!m) return undefined;
    out.push(m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[3] ?? m[4])!);
    rest = rest.slice(m[0].length);
  }
  return out;
}

/** A `contains`/`excludes` value: one text or several. */
type Texts = string | readonly string[] | undefined;
const listOf = (t: Texts): readonly string[] => (t === undefined ? [] : typeof t === 'string' ? [t] : t);

/** The `if … elif …` chain that tests a command's result against `expect` (matchers.ts order). */
function expectChain(check: CommandCheck, i: number, score: string, weight: string): string {
  const e = check.expect ?? {};
  const code = e.exit_code === undefined ? 0 : e.exit_code;
  const ic = flag(e.ignore_case);
  const fail = (message: string) => `  sb_result ${i} 0 0 ${weight} ${message}`;
  const lines = [`if [ "$rc" = ${TIMED_OUT} ]; then`, fail(q('timed out'))];
  if (code !== null)
    lines.push(`elif [ "$rc" != ${code} ]; then`, fail(`"exited with $rc, expected ${code}"`));
  const text = (mode: string, file: string, want: string | undefined, message: string) => {
    if (want === undefined) return;
    lines.push(`elif ! sb_text ${mode} "$sb_tmp/${file}" ${q(want)} ${ic}; then`, fail(q(message)));
  };
  const contents = (file: string, name: string, all: Texts, none: Texts) => {
    for (const want of listOf(all))
      text('contains', file, want, `${name} does not contain ${JSON.stringify(want)}`);
    for (const not of listOf(none))
      lines.push(
        `elif sb_text contains "$sb_tmp/${file}" ${q(not)} ${ic}; then`,
        fail(q(`${name} contains ${JSON.stringify(not)}`)),
      );
  };
  contents('out', 'stdout', e.stdout_contains, e.stdout_excludes);
  text('equals', 'out', e.stdout_equals, `stdout is not ${JSON.stringify(e.stdout_equals)}`);
  text('matches', 'out', e.stdout_matches, `stdout does not match /${e.stdout_matches}/`);
  contents('err', 'stderr', e.stderr_contains, e.stderr_excludes);
  if (check.reward_from_stdout) {
    lines.push(
      `elif ! got=$(sb_stdout_reward); then`,
      fail(`"the last line of stdout ($got) is not a number from 0 to 1"`),
      'else',
      `  sb_result ${i} 1 "$got" ${weight} "printed reward $got"`,
    );
  } else lines.push('else', `  sb_result ${i} 1 ${score} ${weight} "exited with $rc"`);
  lines.push('fi');
  return lines.join('\n');
}

function commandCheck(check: CommandCheck, i: number, score: string, weight: string): string {
  const line = typeof check.command === 'string' ? check.command : check.command.map(shellQuote).join(' ');
  const seconds = Math.max(1, Math.ceil(check.timeout_s ?? COMMAND_CHECK_TIMEOUT_S));
  return [`sb_run ${seconds} ${q(line)}; rc=$?`, expectChain(check, i, score, weight)].join('\n');
}

function fileCheck(check: FileCheck, i: number, score: string, weight: string, label: string): string {
  const path = check.path;
  const f = q(path);
  const fail = (message: string) => `  sb_result ${i} 0 0 ${weight} ${message}`;
  const ic = flag(check.ignore_case);
  const lines = [`f=${f}`];
  if (check.exists === false) {
    lines.push(
      `if [ -e "$f" ] || [ -L "$f" ]; then`,
      fail(q(`${path} exists`)),
      'else',
      `  sb_result ${i} 1 ${score} ${weight} ${q(`${path} does not exist`)}`,
      'fi',
    );
    return lines.join('\n');
  }
  lines.push(
    `if [ ! -e "$f" ]; then`,
    fail(q(`${path} does not exist`)),
    `elif [ "$(wc -c <"$f" 2>/dev/null || echo 0)" -gt ${FILE_CHECK_MAX_BYTES} ]; then`,
    fail(q(`${path} is larger than ${FILE_CHECK_MAX_BYTES} bytes`)),
  );
  const text = (mode: string, want: string | undefined, message: string) => {
    if (want === undefined) return;
    lines.push(`elif ! sb_text ${mode} "$f" ${q(want)} ${ic}; then`, fail(q(message)));
  };
  text('equals', check.equals, `${path} is not ${check.equals === undefined ? '' : cut(check.equals)}`);
  for (const want of listOf(check.contains)) text('contains', want, `${path} does not contain ${cut(want)}`);
  for (const not of listOf(check.excludes))
    lines.push(`elif sb_text contains "$f" ${q(not)} ${ic}; then`, fail(q(`${path} contains ${cut(not)}`)));
  text('matches', check.matches, `${path} does not match /${check.matches}/`);
  if (check.json_path !== undefined) {
    const segments = jsonPathSegments(check.json_path);
    if (!segments)
      throw new TaskNotExportable(
        `${label}: json_path ${JSON.stringify(check.json_path)} uses JSONPath beyond names and indexes ` +
          "($.a.b[0], $['a']), which tests/test.sh does not compute",
      );
    const want = check.json_equals === undefined ? '' : ` ${q(JSON.stringify(check.json_equals))}`;
    const expected =
      check.json_equals === undefined ? '' : `, expected ${JSON.stringify(check.json_equals).slice(0, 200)}`;
    lines.push(
      `else`,
      `  got=$(sb_json "$f" ${q(JSON.stringify(segments))}${want}); rc=$?`,
      `  if [ "$rc" = 2 ]; then`,
      `  ${fail(`${q(`${path} is not JSON: `)}"$got"`)}`,
      `  elif [ "$rc" = 3 ]; then`,
      `  ${fail(q(`${check.json_path} selects nothing in ${path}`))}`,
      `  elif [ "$rc" != 0 ]; then`,
      `  ${fail(`${q(`${check.json_path} is `)}"$got"${q(expected)}`)}`,
      `  else`,
      `    sb_result ${i} 1 ${score} ${weight} ${q(`${path} is as expected`)}`,
      `  fi`,
      'fi',
    );
    return lines.join('\n');
  }
  lines.push('else', `  sb_result ${i} 1 ${score} ${weight} ${q(`${path} is as expected`)}`, 'fi');
  return lines.join('\n');
}

/** How the checks' rewards combine (graders.ts `combine`), in perl over `reward weight` lines. */
function combineLine(how: NonNullable<Grader['combine']>): string {
  const perl = {
    all: 'my $m; while (<STDIN>) { my ($r) = split; $m = $r if !defined $m || $r < $m } print 0 + ($m // 0)',
    any: 'my $m; while (<STDIN>) { my ($r) = split; $m = $r if !defined $m || $r > $m } print 0 + ($m // 0)',
    weighted:
      'my ($s, $w) = (0, 0); while (<STDIN>) { my ($r, $k) = split; $s += $r * $k; $w += $k } print $w ? $s / $w : 0',
  }[how];
  return `reward=$(perl -e ${q(perl)} <"$sb_tmp/results")`;
}

/** The grader's script, or the script of a task without one (reward 0, saying why). */
export function harborTestScript(task: Task): string {
  const header = [
    '#!/bin/sh',
    `# tests/test.sh of the Harbor task exported from sandbay task ${JSON.stringify(task.metadata.name)}:`,
    '# its grader, computed inside the environment as sandbay computes it, the reward (0 to 1) written',
    '# to /logs/verifier/reward.txt (or /tmp/harbor/logs/verifier/reward.txt). Needs sh and perl.',
  ].join('\n');
  const grader = taskGrader(task);
  if (!grader)
    return `${header}\n${PRELUDE}\necho 'the sandbay task has no grader: reward 0'\necho 0 >"$logs/verifier/reward.txt"\n`;
  const blocks = grader.checks.map((check, i) => {
    const label = checkLabel(check, i);
    // A shell word holds anything but a NUL.
    if (JSON.stringify(check).includes('\\u0000'))
      throw new TaskNotExportable(`${label}: a value holds a NUL character, which a shell word cannot`);
    const score = String(check.score ?? 1);
    const weight = String(check.weight ?? 1);
    const body = (() => {
      switch (check.type) {
        case 'command':
          return commandCheck(check, i, score, weight);
        case 'file':
          return fileCheck(check, i, score, weight, label);
        case 'window':
          throw new TaskNotExportable(
            `${label} reads the window tree, which sandbay reads from outside the VM (X11 and ` +
              'AT-SPI, or the Mac’s accessibility bridge); tests/test.sh runs inside it and cannot. ' +
              'Grade such a task with POST /v1/sandboxes/{id}/grade, or express the check as a command or file check',
          );
      }
    })();
    return `# ${label}\n${body}`;
  });
  const how = grader.combine ?? 'all';
  return [
    header,
    PRELUDE,
    ...blocks,
    `# The checks combined: ${how}.`,
    combineLine(how),
    `echo "reward $reward (${how} of ${grader.checks.length} check${grader.checks.length === 1 ? '' : 's'})"`,
    'printf \'%s\\n\' "$reward" >"$logs/verifier/reward.txt"',
    '',
  ].join('\n');
}
