// The page of the web-provider browser test, bundled by esbuild for Chromium: the OpenFeature web
// SDK with @ensign/openfeature-web, driven by the test through `globalThis.ensignPage`. It keeps
// every provider event it sees, so the test reads them from the page.
import { ClientProviderEvents, OpenFeature, type EvaluationContext } from '@openfeature/web-sdk';
import { EnsignWebProvider } from '@ensign/openfeature-web';

const seen: { type: string; flagsChanged?: string[] }[] = [];
for (const type of [
  ClientProviderEvents.Ready,
  ClientProviderEvents.Stale,
  ClientProviderEvents.ConfigurationChanged,
  ClientProviderEvents.Error,
]) {
  OpenFeature.addHandler(type, (details) => {
    const flagsChanged = details && 'flagsChanged' in details ? details.flagsChanged : undefined;
    seen.push({ type, ...(Array.isArray(flagsChanged) ? { flagsChanged } : {}) });
  });
}
let provider: EnsignWebProvider | null = null;

(globalThis as Record<string, unknown>).ensignPage = {
  /** Sets the provider (pub_ key, the default store: localStorage) and waits for READY. */
  async start(url: string, key: string, context: EvaluationContext) {
    provider = new EnsignWebProvider({ url, key, events: false });
    await OpenFeature.setContext(context);
    await OpenFeature.setProviderAndWait(provider);
    return { source: await provider.client.ready(), status: OpenFeature.getClient().providerStatus };
  },
  setContext: (context: EvaluationContext) => OpenFeature.setContext(context),
  evaluate() {
    const client = OpenFeature.getClient();
    const checkout = client.getStringDetails('checkout', 'fallback');
    const hidden = client.getBooleanDetails('ops-only', false);
    return {
      darkMode: client.getBooleanValue('dark-mode', false),
      checkout: { value: checkout.value, reason: checkout.reason, variant: checkout.variant },
      hidden: { value: hidden.value, errorCode: hidden.errorCode },
      status: client.providerStatus,
    };
  },
  events: () => seen,
};
