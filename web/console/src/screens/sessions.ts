/** Enrolment from an invitation link, sign-in with a passkey, and the person's own passkeys. */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { consoleApi, keyed, must, newKey, problem } from '../api';
import { h, show, statusLine, table } from '../dom';
import { dateTime, t } from '../i18n';
import { signedIn } from '../main';

export async function enrolScreen(invitation: string): Promise<void> {
  const status = statusLine();
  show(t('enrolTitle'), status);
  let started;
  try {
    started = await must(consoleApi.POST('/v1/enrolment/options', { body: { invitation } }));
  } catch (error) {
    status.say(problem(error), 'error');
    return;
  }
  const name = h('input', { id: 'passkey-name', type: 'text', value: 'Passkey', maxlength: 100, required: true });
  const button = h('button', { type: 'submit' }, t('enrolButton'));
  const form = h(
    'form',
    {},
    h('p', {}, t('enrolIntro', { name: started.person.name, kind: t(started.person.kind) })),
    h('label', { for: 'passkey-name' }, t('passkeyName')),
    name,
    h('div', { class: 'actions' }, button),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    button.disabled = true;
    void (async () => {
      try {
        const response = await startRegistration({ optionsJSON: started.options as never });
        const session = await must(consoleApi.POST('/v1/enrolment', { body: { invitation, passkeyName: name.value, response: response as never } }));
        await signedIn(session);
      } catch (error) {
        status.say(problem(error), 'error');
        button.disabled = false;
      }
    })();
  });
  show(t('enrolTitle'), form, status);
}

export function signInScreen(): void {
  const status = statusLine();
  const button = h('button', { type: 'button' }, t('signInButton'));
  button.addEventListener('click', () => {
    button.disabled = true;
    status.say('');
    void (async () => {
      try {
        const { options } = await must(consoleApi.POST('/v1/sign-in/options'));
        const response = await startAuthentication({ optionsJSON: options as never });
        await signedIn(await must(consoleApi.POST('/v1/sign-in', { body: { response: response as never } })));
      } catch (error) {
        status.say(problem(error), 'error');
        button.disabled = false;
      }
    })();
  });
  show(t('signInTitle'), h('p', {}, t('signInIntro')), h('div', { class: 'actions' }, button), status);
}

export async function passkeysScreen(): Promise<void> {
  const status = statusLine();
  const { passkeys } = await must(consoleApi.GET('/v1/passkeys'));
  const remove = (id: string) => async () => {
    try {
      await must(consoleApi.DELETE('/v1/passkeys/{passkeyId}', { params: { path: { passkeyId: id }, ...keyed() } }));
      await passkeysScreen();
    } catch (error) {
      status.say(problem(error), 'error');
    }
  };
  const name = h('input', { id: 'new-passkey-name', type: 'text', maxlength: 100, required: true });
  const form = h(
    'form',
    {},
    h('label', { for: 'new-passkey-name' }, t('passkeyName')),
    name,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('addPasskey'))),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      try {
        const options = await must(consoleApi.POST('/v1/passkeys/options', { params: keyed() }));
        const response = await startRegistration({ optionsJSON: options as never });
        await must(consoleApi.POST('/v1/passkeys', { params: keyed(newKey()), body: { name: name.value, response: response as never } }));
        await passkeysScreen();
      } catch (error) {
        status.say(problem(error), 'error');
      }
    })();
  });
  show(
    t('passkeysTitle'),
    table(
      [t('passkeyName'), t('createdAt'), t('lastUsed'), ''],
      passkeys.map((passkey) => [
        passkey.name,
        dateTime(passkey.createdAt),
        dateTime(passkey.lastUsedAt),
        h('button', { type: 'button', class: 'secondary', onclick: () => void remove(passkey.id)() }, `${t('remove')}: ${passkey.name}`),
      ]),
    ),
    form,
    status,
  );
}
