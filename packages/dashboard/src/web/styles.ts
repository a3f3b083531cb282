/** The page's style sheet: system fonts, one accent colour, tables that fit a laptop screen. */
export const STYLES = `
:root { color-scheme: light; --accent: #3b5bdb; --muted: #667; --line: #e3e5ea; --bad: #c92a2a; --ok: #2b8a3e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1c1e24; background: #f7f8fa; }
header { display: flex; align-items: center; gap: 12px; padding: 10px 20px; background: #fff; border-bottom: 1px solid var(--line); }
h1 { font-size: 18px; margin: 0; } h1 small { color: var(--muted); font-weight: 400; }
h2 { font-size: 15px; margin: 0 0 8px; } h2 small { color: var(--muted); font-weight: 400; }
main { padding: 16px 20px; display: grid; gap: 16px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 14px; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { color: var(--muted); font-weight: 500; font-size: 12px; }
td.num, th.num { text-align: right; } td.payload, td.error { max-width: 320px; overflow: hidden; text-overflow: ellipsis; font-family: ui-monospace, monospace; font-size: 12px; }
td.error { color: var(--bad); }
a { color: var(--accent); cursor: pointer; text-decoration: none; } a:hover { text-decoration: underline; }
button { font: inherit; padding: 2px 10px; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; }
button:hover { border-color: var(--accent); color: var(--accent); } button:disabled { opacity: .4; cursor: default; }
.badge { background: #fff3bf; border: 1px solid #fab005; border-radius: 10px; padding: 0 8px; font-size: 12px; }
.status { margin-left: auto; color: var(--muted); font-size: 12px; } .status.bad { color: var(--bad); }
.paused { color: var(--bad); font-weight: 600; } .running { color: var(--ok); }
nav { display: flex; gap: 6px; margin-bottom: 8px; } nav button.on { background: var(--accent); color: #fff; border-color: var(--accent); }
nav a.tab { padding: 2px 10px; border: 1px solid var(--line); border-radius: 4px; color: inherit; } nav a.tab.on { background: var(--accent); color: #fff; border-color: var(--accent); }
input[type=search] { font: inherit; padding: 2px 8px; border: 1px solid var(--line); border-radius: 4px; width: 320px; }
#minutes { display: flex; align-items: flex-end; gap: 2px; height: 64px; margin-bottom: 6px; }
.minute { display: flex; flex-direction: column-reverse; flex: 1 1 0; max-width: 10px; } .minute i { display: block; width: 100%; }
.minute i.done { background: var(--ok); } .minute i.fail { background: var(--bad); }
td.outcome.failed, td.outcome.stalled { color: var(--bad); } td.outcome.completed { color: var(--ok); }
.bar { display: flex; gap: 8px; align-items: center; margin-bottom: 6px; } .bar span { color: var(--muted); font-size: 12px; }
#detail { margin-top: 10px; border-top: 1px solid var(--line); padding-top: 8px; }
#detail pre { background: #f1f3f5; padding: 8px; border-radius: 4px; max-height: 240px; overflow: auto; margin: 4px 0 8px; }
.note { color: var(--muted); font-size: 12px; margin: 0 0 6px; }
`;
