// @ts-check
// A static page deciding with Ensign flags in the browser: the OpenFeature web SDK with
// @ensign/openfeature-web, which evaluates the pub_ key's client projection in the page (a context
// change needs no request), keeps a copy in localStorage (a reload is served at once, even with
// Ensign down), and re-renders when a flag changes on the server.
import { OpenFeature, ProviderEvents } from '@openfeature/web-sdk';
import { EnsignWebProvider } from '@ensign/openfeature-web';

// Where Ensign is and the environment's pub_ key (safe to ship in a page; never an sdk_ key).
// Taken from the address (?url=…&key=pub_…) so the page works against any server.
const params = new URLSearchParams(location.search);
const url = params.get('url') ?? 'http://127.0.0.1:8080';
const key = params.get('key') ?? '';

const visitor = {
  targetingKey: localStorage.getItem('visitor') ?? `visitor-${Math.random().toString(36).slice(2)}`,
  plan: 'free',
  country: 'NO',
};
localStorage.setItem('visitor', visitor.targetingKey);

const element = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

function render() {
  const client = OpenFeature.getClient();
  const checkout = client.getStringDetails('checkout', 'classic');
  element('checkout').textContent = checkout.value;
  element('reason').textContent = checkout.reason ?? '';
  document.body.classList.toggle('dark', client.getBooleanValue('dark-mode', false));
  element('plan').textContent = visitor.plan;
  element('status').textContent = client.providerStatus;
}

OpenFeature.addHandler(ProviderEvents.ConfigurationChanged, render);
OpenFeature.addHandler(ProviderEvents.Stale, render);
OpenFeature.addHandler(ProviderEvents.Ready, render);

element('upgrade').addEventListener('click', async () => {
  // A new context: evaluated locally, no request to Ensign.
  visitor.plan = visitor.plan === 'free' ? 'beta' : 'free';
  await OpenFeature.setContext(visitor);
  render();
});

if (!key) {
  element('status').textContent = 'Add ?key=pub_… (and &url=… when Ensign is not at 127.0.0.1:8080) to the address.';
} else {
  await OpenFeature.setContext(visitor);
  await OpenFeature.setProviderAndWait(new EnsignWebProvider({ url, key }));
  render();
}
