// The bridge between a dynamic resource and its provider module. Pulumi runs a dynamic provider in its
// own process from a *serialized closure* of the provider object; serializing the provider class itself
// would drag every module it imports (the admin client, node:http, the schemas) through Pulumi's closure
// serializer, which handles ES modules poorly. So the serialized object holds only a module path and an
// export name, and imports the real provider in the provider process, where Node 24 runs TypeScript as
// it runs the program. The path is relative to the project root (the directory of Pulumi.yaml), which
// is the working directory of both the program and its provider processes; SANDBAY_FLEET_ROOT overrides.
import type * as pulumi from '@pulumi/pulumi';

type Provider = pulumi.dynamic.ResourceProvider;

export function delegatingProvider(modulePath: string, exportName: string): Provider {
  let loaded: Promise<Provider> | undefined;
  let configured: pulumi.dynamic.ConfigureRequest | undefined;
  const provider = async (): Promise<Provider> => {
    loaded ??= (async () => {
      const root = process.env['SANDBAY_FLEET_ROOT'] || process.cwd();
      // A Function built from text, so that no bundler or test runner rewrites this import() into
      // its own loader, which would then be dragged into the serialized closure (Pulumi's own run.js
      // loads programs the same way).
      const importModule = new Function('url', 'return import(url)') as (url: string) => Promise<unknown>;
      const mod = (await importModule(new URL(modulePath, `file://${root}/`).href)) as Record<
        string,
        new () => Provider
      >;
      const Impl = mod[exportName];
      if (!Impl) throw new Error(`${modulePath} exports no ${exportName}`);
      const instance = new Impl();
      if (configured && instance.configure) await instance.configure(configured);
      return instance;
    })();
    return loaded;
  };
  return {
    configure: async (req) => {
      configured = req;
    },
    check: async (olds, news) => {
      const p = await provider();
      return p.check ? p.check(olds, news) : { inputs: news };
    },
    diff: async (id, olds, news) => {
      const p = await provider();
      return p.diff ? p.diff(id, olds, news) : {};
    },
    create: async (inputs) => (await provider()).create(inputs),
    read: async (id, props) => {
      const p = await provider();
      return p.read ? p.read(id, props) : { id, props };
    },
    update: async (id, olds, news) => {
      const p = await provider();
      return p.update ? p.update(id, olds, news) : { outs: news };
    },
    delete: async (id, props) => {
      const p = await provider();
      if (p.delete) await p.delete(id, props);
    },
  };
}
