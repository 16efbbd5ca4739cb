import { stringify } from 'yaml';
const o = { a: 'yes', b: 'on', c: 'y', d: '1e3', e: '0x10', f: '', g: 'null', h: '~', i: '12:30', j: 'a: b', k: '- x', l: 'multi\nline', m: ' lead', n: 'true', o: '1.5', p: '0777', q: '+1', r: '.inf', s: 'N', t: 'Off' };
process.stdout.write(stringify(o, { sortMapEntries: true, indentSeq: false, lineWidth: 0, defaultKeyType: 'PLAIN', defaultStringType: 'PLAIN', doubleQuotedAsJSON: true, version: '1.1' }));
