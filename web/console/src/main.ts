/**
 * The console (issue 37): a director's integrations section and the reviewers' desk. Routes live in
 * the URL's fragment (`#/credentials`), so an enrolment link's token never reaches a server log.
 * The session is read from the console API; each screen calls back-office operations.
 */
import { consoleApi, keyed, must, type ConsoleSchemas } from './api';
import { append, h } from './dom';
import { language, switchLanguage, t, dateTime, type Key } from './i18n';
import { enrolScreen, passkeysScreen, signInScreen } from './screens/sessions';
import { credentialsScreen } from './screens/credentials';
import { requestLogScreen } from './screens/request-log';
import { webhooksScreen } from './screens/webhooks';
import { guaranteeScreen, guaranteesScreen } from './screens/guarantees';
import { queueScreen, reviewScreen } from './screens/desk';
import { adminCredentialsScreen, auditScreen } from './screens/admin';
import { directorsScreen } from './screens/directors';

export type Session = ConsoleSchemas['Session'];
let session: Session | undefined;

interface Route {
  path: RegExp;
  nav?: Key;
  /** Who sees it: a director, staff with this scope, or anyone signed in. */
  who?: 'director' | Session['person']['scopes'][number];
  screen: (match: RegExpMatchArray, session: Session) => Promise<void> | void;
}

const ROUTES: Route[] = [
  { path: /^#\/credentials$/, nav: 'navCredentials', who: 'director', screen: () => credentialsScreen() },
  { path: /^#\/request-log$/, nav: 'navRequestLog', who: 'director', screen: () => requestLogScreen() },
  { path: /^#\/webhooks$/, nav: 'navWebhooks', who: 'director', screen: () => webhooksScreen() },
  { path: /^#\/guarantees$/, nav: 'navGuarantees', who: 'director', screen: () => guaranteesScreen() },
  { path: /^#\/guarantees\/(\d{1,18})$/, who: 'director', screen: (m) => guaranteeScreen(Number(m[1])) },
  { path: /^#\/queue$/, nav: 'navQueue', who: 'ops:guarantees:review', screen: () => queueScreen() },
  { path: /^#\/review\/(\d{1,18})$/, who: 'ops:guarantees:review', screen: (m) => reviewScreen(Number(m[1])) },
  { path: /^#\/admin\/credentials$/, nav: 'navAdminCredentials', who: 'ops:credentials:admin', screen: () => adminCredentialsScreen() },
  { path: /^#\/admin\/directors$/, nav: 'navDirectors', who: 'ops:credentials:admin', screen: () => directorsScreen() },
  { path: /^#\/admin\/audit$/, nav: 'navAudit', who: 'ops:credentials:admin', screen: () => auditScreen() },
  { path: /^#\/passkeys$/, nav: 'navPasskeys', screen: () => passkeysScreen() },
];

const allowed = (route: Route, current: Session) =>
  route.who === undefined || (route.who === 'director' ? current.person.kind === 'director' : current.person.scopes.includes(route.who));

function renderHeader(): void {
  const header = document.getElementById('top')!;
  const items = session ? ROUTES.filter((route) => route.nav && allowed(route, session!)) : [];
  header.replaceChildren();
  append(header, [
    h('span', { class: 'brand' }, t('brand')),
    items.length > 0
      ? h(
          'nav',
          { 'aria-label': 'Console' },
          h(
            'ul',
            {},
            ...items.map((route) => {
              const href = route.path.source.replace(/^\^/, '').replace(/\$$/, '').replace(/\\\//g, '/');
              return h('li', {}, h('a', { href, 'aria-current': location.hash === href ? 'page' : undefined }, t(route.nav!)));
            }),
          ),
        )
      : null,
    session ? h('span', {}, `${session.person.name} · ${t('sessionEnds', { time: dateTime(session.idleExpiresAt) })}`) : null,
    h(
      'button',
      { class: 'link', type: 'button', lang: language === 'en' ? 'pt-BR' : 'en', onclick: () => (switchLanguage(), void route()) },
      t('language'),
    ),
    session ? h('button', { class: 'link', type: 'button', onclick: () => void signOut() }, t('signOut')) : null,
  ]);
  document.querySelector('.skip')!.textContent = t('skip');
}

async function signOut(): Promise<void> {
  await must(consoleApi.POST('/v1/sign-out', { params: keyed() })).catch(() => undefined);
  session = undefined;
  location.hash = '#/sign-in';
}

export async function signedIn(started: Session): Promise<void> {
  session = started;
  location.hash = home(started);
}

function home(current: Session): string {
  if (current.person.kind === 'director') return '#/credentials';
  return current.person.scopes.includes('ops:guarantees:review') ? '#/queue' : '#/admin/credentials';
}

async function route(): Promise<void> {
  document.documentElement.lang = language;
  const hash = location.hash || '#/';
  const enrol = /^#\/enrol\/([A-Za-z0-9_-]{1,80})$/.exec(hash);
  if (enrol) {
    session = undefined;
    renderHeader();
    return enrolScreen(enrol[1]!);
  }
  if (hash === '#/sign-in') {
    session = undefined;
    renderHeader();
    return signInScreen();
  }
  if (!session) {
    const { data } = await consoleApi.GET('/v1/session');
    if (!data) {
      location.hash = '#/sign-in';
      return;
    }
    session = data;
  }
  const found = ROUTES.find((candidate) => candidate.path.test(hash) && allowed(candidate, session!));
  if (!found) {
    location.hash = home(session);
    return;
  }
  renderHeader();
  await found.screen(hash.match(found.path)!, session);
}

window.addEventListener('hashchange', () => void route());
void route();
