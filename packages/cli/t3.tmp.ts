import { createHook } from 'node:async_hooks';
import { writeSync } from 'node:fs';
const hook = createHook({ init(id, type, _t, res: any) { if (type === 'Timeout') { writeSync(1, `Timeout ${res._idleTimeout}\n${new Error().stack?.split('\n').slice(2, 9).join('\n')}\n`); } } });
const { main } = await import('./src/main.js');
hook.enable();
const code = await main(['queues', '--url', 'redis://127.0.0.1:1'], { out: (t) => process.stdout.write(t), err: (t) => process.stdout.write(t), env: {}, isTty: false, signal: new AbortController().signal });
hook.disable();
