// The dashboard: sign in with the account key, then the pages. The session lives in an HttpOnly
// cookie; this code never keeps the key after signing in.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './style.css';
import type { Account } from '../../../sdk/typescript/src/index.ts';
import { client, isSignedOut, messageOf, money } from './api.ts';
import { Link, navigate, usePath } from './router.tsx';
import { ErrorNote, Loading } from './ui.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { RatesPage } from './pages/rates.tsx';
import { ReservePage } from './pages/reserve.tsx';
import { ReservationsPage } from './pages/reservations.tsx';
import { SandboxesPage } from './pages/sandboxes.tsx';
import { LiveViewPage } from './pages/live-view.tsx';
import { AccountPage } from './pages/account.tsx';
import { TasksPage } from './pages/tasks.tsx';
import { EvaluationsPage } from './pages/evaluations.tsx';

const PAGES = [
  { path: '/', label: 'Rates' },
  { path: '/reserve', label: 'Reserve' },
  { path: '/reservations', label: 'Reservations' },
  { path: '/sandboxes', label: 'Sandboxes' },
  { path: '/tasks', label: 'Tasks' },
  { path: '/evaluations', label: 'Evaluations' },
  { path: '/account', label: 'Account' },
];

type SessionState = { state: 'checking' } | { state: 'out'; error?: string } | { state: 'in' };

function App() {
  const [session, setSession] = useState<SessionState>({ state: 'checking' });
  useEffect(() => {
    client.session().then(
      () => setSession({ state: 'in' }),
      (err: unknown) =>
        setSession(isSignedOut(err) ? { state: 'out' } : { state: 'out', error: messageOf(err) }),
    );
  }, []);
  if (session.state === 'checking') return <Loading what="your session" />;
  if (session.state === 'out')
    return (
      <>
        {session.error && <ErrorNote message={session.error} />}
        <SignIn onSignedIn={() => setSession({ state: 'in' })} />
      </>
    );
  return <Shell onSignedOut={() => setSession({ state: 'out' })} />;
}

/** The signed-in frame: navigation, the account's credit, and the page of the current path. */
function Shell(props: { onSignedOut: () => void }) {
  const path = usePath();
  const [account, setAccount] = useState<Account | undefined>();
  const refreshAccount = () =>
    client.account().then(setAccount, (err: unknown) => isSignedOut(err) && props.onSignedOut());
  useEffect(() => void refreshAccount(), [path]);
  useEffect(() => {
    const title =
      PAGES.find((p) => p.path === path)?.label ??
      (path.startsWith('/sandboxes/')
        ? 'Live view'
        : path.startsWith('/evaluations/')
          ? 'Evaluations'
          : 'Tasks');
    document.title = `${title} · sandbay`;
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [path]);
  const signOut = async () => {
    await client.signOut().catch(() => undefined);
    navigate('/');
    props.onSignedOut();
  };
  const section = '/' + (path.split('/')[1] ?? '');
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <span class="brand">sandbay</span>
        <nav aria-label="Pages">
          {PAGES.map((p) => (
            <Link key={p.path} href={p.path} current={section === p.path}>
              {p.label}
            </Link>
          ))}
        </nav>
        <span class="who">
          {account && (
            <>
              <span data-testid="account-name">{account.display_name}</span> ·{' '}
              <span data-testid="credit">{money(account.balance_cents)}</span> credit
            </>
          )}
          <button type="button" class="link" onClick={() => void signOut()}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        <Page path={path} account={account} onPaid={() => void refreshAccount()} />
      </main>
    </>
  );
}

function Page(props: { path: string; account: Account | undefined; onPaid: () => void }) {
  const { path } = props;
  if (path === '/') return <RatesPage />;
  if (path === '/reserve') return <ReservePage account={props.account} onPaid={props.onPaid} />;
  if (path === '/reservations') return <ReservationsPage onPaid={props.onPaid} />;
  if (path === '/sandboxes') return <SandboxesPage />;
  const live = /^\/sandboxes\/(sb-[0-9a-f]{32})$/.exec(path);
  if (live) return <LiveViewPage id={live[1]!} />;
  if (path === '/account') return <AccountPage />;
  if (path === '/tasks' || path.startsWith('/tasks/')) return <TasksPage path={path} />;
  if (path === '/evaluations' || path.startsWith('/evaluations/')) return <EvaluationsPage path={path} />;
  return (
    <>
      <h1>Not found</h1>
      <p>
        No page at this address. <Link href="/">Go to rates and availability</Link>.
      </p>
    </>
  );
}

// The page's own 'Loading…' placeholder goes: the app renders into an empty element.
const root = document.getElementById('app')!;
root.replaceChildren();
render(<App />, root);
