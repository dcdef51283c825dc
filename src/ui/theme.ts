// Colours and symbols in one place; screens name a role ("error"), never a colour.
export const theme = {
  title: { color: 'cyan', bold: true },
  selected: { color: 'cyan' },
  muted: { dimColor: true },
  ok: { color: 'green' },
  warning: { color: 'yellow' },
  error: { color: 'red' },
  footer: { dimColor: true },
  symbols: { ok: '✓', fail: '✗', warn: '!', pointer: '›', bullet: '•' },
  mask: '•',
} as const;
