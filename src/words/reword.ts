import { isDistinctive } from './identifier-words.js';
import type { DescriptionShape, WordLists } from './types.js';

/**
 * Grammatical rewording of tool and skill descriptions. The first sentence is parsed into a shape
 * and a core — "Use this tool to get X" → verb "get X"; "This tool returns X" → verb3 "returns X";
 * "Tool for booking X" → for "booking X"; "Use when X" → when "when X"; "The current X" → noun;
 * "该工具用于查询X" → zh_verb "查询X" — and re-rendered with a frame of the same shape (frames are
 * word-pack data). Known verbs may switch between base and third-person form ("get" ↔ "gets") so
 * verb frames and verb3 frames both apply. Anything not parsed with confidence gets only label
 * frames ("Purpose: …"), which are grammatical with any sentence; text in other languages is left
 * alone. The rest of the description (after the first sentence) is kept byte for byte.
 */

export interface Parsed {
  shape: DescriptionShape;
  core: string;
  /** The first sentence's final punctuation ('' when it had none). */
  terminal: string;
  /** Everything after the first sentence, as written. */
  rest: string;
  lang: 'en' | 'zh';
}

// Verbs in base form. Ambiguous ones (also common nouns) count as verbs only before a determiner.
const VERBS = `get fetch retrieve obtain create delete remove find locate compute calculate convert translate send cancel verify
validate generate summarize summarise explain recommend add provide handle look escalate notify reserve submit assign resolve
reschedule rebook apply compare describe identify determine extract parse analyze analyse evaluate detect classify approve reject
confirm save insert append publish greet thank apologize apologise suggest propose predict enumerate browse inspect execute invoke
authenticate authorize authorise deliver redirect manage keep make render fill gather collect write compose modify rename merge
tell ask give enable disable begin accept deny decline respond show perform allow think use take replace install deploy scan
print navigate scroll click lookup`;
const AMBIGUOUS = `order record search list book check return update change request report review transfer refund query track schedule
message note call rank sort filter estimate quote file log post answer reply test plan process issue alert ping help sign match set
reset run start stop view design control access display contact rate charge ship bill invoice close complete register launch trigger
monitor forecast upgrade share mark flag count sum total build produce clear wait dispatch route forward support email text resume
upload download store welcome offer fix pause finish pay draft edit read move copy measure tag label split open exchange
work type play capture`;
const BASE = new Set([...VERBS.split(/\s+/), ...AMBIGUOUS.split(/\s+/)].filter((w) => w !== 'lookup'));
const AMBIGUOUS_SET = new Set(AMBIGUOUS.split(/\s+/));
const IRREGULAR: Record<string, string> = { have: 'has', be: 'is', do: 'does', go: 'goes' };

/** get → gets, fetch → fetches, query → queries. */
export function thirdPerson(base: string): string {
  if (IRREGULAR[base]) return IRREGULAR[base];
  if (/(?:s|sh|ch|x|z|o)$/.test(base)) return `${base}es`;
  if (/[^aeiou]y$/.test(base)) return `${base.slice(0, -1)}ies`;
  return `${base}s`;
}
const THIRD = new Map([...BASE].map((b) => [thirdPerson(b), b]));

/** Words after which an ambiguous first word reads as a verb ("Returns the …", "List all …"). */
const VERB_NEXT = new Set(
  'the a an all any every each some this that these those its their his her your my our one it them him me us you whether if how what which who where why up out back down'.split(
    ' ',
  ),
);

const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs', 'approx', 'incl', 'no', 'mr', 'mrs', 'dr', 'st', 'cf', 'ca', 'u.s', 'min', 'max', 'esp']);

/** Words that mark a Latin-script text as another language than English. */
const FOREIGN = new Set(
  'el la los las del para por con una uno est les des pour avec dans une der die das und mit für ist ein eine nicht dei della per il che não uma com'.split(
    ' ',
  ),
);
const ENGLISH = new Set('the a an of to for and or with by in on from is are this that it be as at'.split(' '));

const ZH_VERBS = `查询 获取 检查 计算 创建 取消 更新 修改 删除 搜索 查找 发送 推荐 生成 翻译 转换 预订 预定 退款 申请 提交 记录 返回 列出 查看 核实 验证
处理 回答 解释 比较 安排 确认 通知 改签 办理 添加 设置 评估 估算 统计 汇总 总结 上传 下载 登记 登录 注册 值机 选择 分配 转接 升级 介绍 说明 提供
告知 回复 识别 判断 领取 发放 兑换 追踪 跟踪 预约 调整 关闭 打开 开启 读取 写入 保存 加载 匹配 过滤 排序 展示 显示 提醒 引导 帮助 协助 解答`
  .split(/\s+/)
  .sort((a, b) => b.length - a.length);

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/g;
const KANA_HANGUL = /[\u3040-\u30ff\uac00-\ud7af]/;

/** The description with a lower-case first letter when its first word is an ordinary capitalised word (not FAQ, ItemQa, load_skill). */
export function lowerFirst(text: string): string {
  const first = /^[A-Za-z0-9_-]+/.exec(text)?.[0];
  if (first === undefined || isDistinctive(first) || !/^[A-Z][a-z]*$/.test(first)) return text;
  return first[0]!.toLowerCase() + text.slice(1);
}

/** Capitalise the first letter when the text starts with a plain lower-case word (never an identifier). */
export function upperFirst(text: string): string {
  const first = /^[A-Za-z0-9_-]+/.exec(text)?.[0];
  if (first === undefined || isDistinctive(first) || !/^[a-z]+$/.test(first) || /^[`(]/.test(text.slice(first.length))) return text;
  return first[0]!.toUpperCase() + text.slice(1);
}

/** The first sentence (without its final punctuation), that punctuation, and the rest as written. */
function splitFirst(text: string, lang: 'en' | 'zh'): { first: string; terminal: string; rest: string } {
  const newline = text.indexOf('\n');
  const end = lang === 'zh' ? /[。！？；!?]/g : /[.!?:](?=\s|$)/g;
  let m: RegExpExecArray | null;
  while ((m = end.exec(text)) !== null) {
    if (newline >= 0 && m.index > newline) break;
    if (lang === 'en' && m[0] === '.') {
      const before = /([A-Za-z.]+)$/.exec(text.slice(0, m.index))?.[1]?.toLowerCase();
      if (before && ABBREVIATIONS.has(before)) continue;
    }
    return { first: text.slice(0, m.index), terminal: m[0], rest: text.slice(m.index + 1) };
  }
  if (newline >= 0) return { first: text.slice(0, newline), terminal: '', rest: text.slice(newline) };
  return { first: text, terminal: '', rest: '' };
}

const THING = '(?:tool|function|skill)';
const WHEN = '(?:when|whenever|if|once|after|before|while)';

// The lead-ins parseDescription recognises, made once (none has the `g` flag: exec keeps no state).
const USE_TO = new RegExp(`^(?:use|call) (?:this|it)(?: ${THING})? (to|for) (.+)$`, 'i');
const USE_WHEN = new RegExp(`^(?:use|call) (?:this|it)(?: ${THING})? ((?:only )?${WHEN} .+)$`, 'i');
const BARE_USE_WHEN = new RegExp(`^use ((?:only )?${WHEN} .+)$`, 'i');
const THING_USED_TO = new RegExp(`^(?:this|the) ${THING} (?:(?:can|may|should|will) be|is) used (to|for) (.+)$`, 'i');
const THING_USED_WHEN = new RegExp(`^(?:this|the) ${THING} (?:(?:can|may|should|will) be|is) used (${WHEN} .+)$`, 'i');
const THING_IS_FOR = new RegExp(`^(?:this|the) ${THING} is for (.+)$`, 'i');
const THING_CLAUSE = new RegExp(`^(?:this|the) ${THING} ([a-z].*)$`, 'i');
const A_THING_FOR = new RegExp(`^(?:an? )?${THING} (?:used )?(for|to) (.+)$`, 'i');
const A_THING_THAT = new RegExp(`^(?:an? )?${THING} (?:that|which) ([a-z].*)$`, 'i');
const USED_WHEN = new RegExp(`^used (${WHEN} .+)$`, 'i');

/** Parse a description into shape and core; `null` when it is not safe to reword (another language, a question, empty). */
export function parseDescription(text: string): Parsed | null {
  if (text.trim() === '' || KANA_HANGUL.test(text)) return null;
  const cjk = (text.match(CJK) ?? []).length;
  const latin = (text.match(/[A-Za-z]/g) ?? []).length;
  if (cjk > 0 && cjk * 2 >= latin) return parseChinese(text);
  if (cjk > 0) return null;
  const tokens = text.toLowerCase().match(/[a-zà-ÿ]+/g) ?? [];
  const foreign = tokens.filter((t) => FOREIGN.has(t)).length;
  if (foreign >= 2 && foreign > tokens.filter((t) => ENGLISH.has(t)).length) return null;
  const { first, terminal, rest } = splitFirst(text, 'en');
  if (terminal === '?' || terminal === '!' || first.trim() === '' || first !== first.trim()) return null;
  // Markup first (a list item, a heading, a quote, a table): a frame in front would break it.
  if (/^(?:[-*+#>|]|\d+[.)]\s)/.test(first)) return null;
  const en = (shape: DescriptionShape, core: string): Parsed | null => {
    if (core.trim() === '') return null;
    // After a lead-in "… to", the core must start with a verb we know: "Use this to guidance for …"
    // (an original that is already broken) is left alone rather than spread to more frames.
    if (shape === 'verb' && !BASE.has(core.split(/\s+/)[0]!.toLowerCase())) return null;
    return { shape, core, terminal, rest, lang: 'en' };
  };
  let m: RegExpExecArray | null;
  if ((m = USE_TO.exec(first))) return en(m[1]!.toLowerCase() === 'to' ? 'verb' : 'for', m[2]!);
  if ((m = USE_WHEN.exec(first))) return en('when', m[1]!);
  if ((m = BARE_USE_WHEN.exec(first))) return en('when', m[1]!);
  if ((m = THING_USED_TO.exec(first))) return en(m[1]!.toLowerCase() === 'to' ? 'verb' : 'for', m[2]!);
  if ((m = THING_USED_WHEN.exec(first))) return en('when', m[1]!);
  if ((m = THING_IS_FOR.exec(first))) return en('for', m[1]!);
  if ((m = THING_CLAUSE.exec(first))) return en(isThird(m[1]!) ? 'verb3' : 'clause', m[1]!);
  if ((m = A_THING_FOR.exec(first))) return en(m[1]!.toLowerCase() === 'to' ? 'verb' : 'for', m[2]!);
  if ((m = A_THING_THAT.exec(first))) return en(isThird(m[1]!) ? 'verb3' : 'clause', m[1]!);
  if ((m = /^used (to|for) (.+)$/i.exec(first))) return en(m[1]!.toLowerCase() === 'to' ? 'verb' : 'for', m[2]!);
  if ((m = USED_WHEN.exec(first))) return en('when', m[1]!);
  // A lead-in we do not know ("Use this only …", "Call it …"): not reworded rather than garbled.
  if (/^(?:use|call) (?:this|it)\b/i.test(first)) return null;
  const words = first.split(/\s+/);
  const w0 = words[0]!;
  const next = (words[1] ?? '').toLowerCase().replace(/[^a-z]/g, '');
  if (/^[A-Za-z][a-z]+$/.test(w0)) {
    const lw = w0.toLowerCase();
    const verbLike = (base: string) => !AMBIGUOUS_SET.has(base) || VERB_NEXT.has(next);
    if (BASE.has(lw) && verbLike(lw)) return en('verb', lowerFirst(first));
    const base = THIRD.get(lw);
    if (base !== undefined && verbLike(base)) return en('verb3', lowerFirst(first));
    if (lw.endsWith('ing') && lw.length > 5 && VERB_NEXT.has(next)) return en('for', lowerFirst(first));
  }
  return en('noun', first);
}

function isThird(clause: string): boolean {
  return THIRD.has(clause.split(/\s+/)[0]!.toLowerCase());
}

const ZH_LEAD = /^(?:(?:该|此|本|这个)?(?:工具|技能|函数|接口))?(?:可以|可|能够|能)?(?:用于|用来|用以)/;
const ZH_SUBJECT = /^(?:该|此|本|这个)(?:工具|技能|函数|接口)/;

function parseChinese(text: string): Parsed | null {
  const { first, terminal, rest } = splitFirst(text, 'zh');
  if (terminal === '？' || terminal === '?' || terminal === '！' || terminal === '!' || first.trim() === '') return null;
  let core = first;
  const lead = ZH_LEAD.exec(core) ?? ZH_SUBJECT.exec(core);
  if (lead && lead[0].length < core.length) core = core.slice(lead[0].length);
  const shape: DescriptionShape = ZH_VERBS.some((v) => core.startsWith(v)) ? 'zh_verb' : 'zh_noun';
  return { shape, core, terminal, rest, lang: 'zh' };
}

/** The core with its first verb switched between base and third-person form, when that is safe. */
function switchPerson(p: Parsed): Parsed | null {
  if (p.shape !== 'verb' && p.shape !== 'verb3') return null;
  const words = p.core.split(' ');
  const w0 = words[0]!;
  if (!/^[a-z]+$/.test(w0)) return null;
  // A second verb of the same form later in the sentence ("extracts text, fills forms") would keep
  // the old form: then the person is not switched at all.
  const sameForm = (w: string) => (p.shape === 'verb' ? BASE.has(w) && !AMBIGUOUS_SET.has(w) : THIRD.has(w));
  const later = words.slice(1).map((w) => w.toLowerCase().replace(/[^a-z]/g, ''));
  if (later.some(sameForm)) return null;
  const switched = p.shape === 'verb' ? (BASE.has(w0) ? thirdPerson(w0) : undefined) : THIRD.get(w0);
  if (switched === undefined) return null;
  return { ...p, shape: p.shape === 'verb' ? 'verb3' : 'verb', core: [switched, ...words.slice(1)].join(' ') };
}

function fill(frame: string, p: Parsed, thing: 'tool' | 'skill'): string {
  const thingWord = p.lang === 'zh' ? (thing === 'tool' ? '工具' : '技能') : thing;
  return (
    frame.replace(/\{(core|Core|thing)\}/g, (_, k: string) => (k === 'thing' ? thingWord : k === 'core' ? p.core : upperFirst(p.core))) + p.terminal + p.rest
  );
}

function doubled(s: string): Set<string> {
  const out = new Set<string>();
  for (const m of s.matchAll(/\b([A-Za-z]+)\s+\1\b/gi)) out.add(m[1]!.toLowerCase());
  for (const m of s.matchAll(/([\u3400-\u9fff]{2})\1/g)) out.add(m[1]!);
  return out;
}

/**
 * Every grammatical rewording of `text` with the pack's frames, in frame order, each different
 * from the original, with no doubled word the original did not have, at most `maxLength` long.
 */
export function rewordings(
  text: string,
  frames: WordLists['descriptionFrames'],
  thing: 'tool' | 'skill',
  maxLength = Infinity,
): { text: string; frame: string }[] {
  const parsed = parseDescription(text);
  if (!parsed) return [];
  const variants = [parsed, switchPerson(parsed)].filter((p): p is Parsed => p !== null);
  const had = doubled(text);
  const out: { text: string; frame: string }[] = [];
  const seen = new Set<string>([text]);
  for (const p of variants) {
    for (const frame of frames[p.shape] ?? []) {
      const next = fill(frame, p, thing);
      if (seen.has(next) || next.length > maxLength || [...doubled(next)].some((d) => !had.has(d))) continue;
      seen.add(next);
      out.push({ text: next, frame: `${p.shape}:${frame}` });
    }
  }
  return out;
}

/** The part of a seeded rng that reword uses (the transform engine's Rng is one). */
export interface Picker {
  pick<T>(items: readonly T[]): T;
}

/** One rewording chosen by `rng` (null when there is none). */
export function reword(text: string, words: WordLists, thing: 'tool' | 'skill', rng: Picker, maxLength = Infinity): { text: string; frame: string } | null {
  const options = cachedRewordings(text, words.descriptionFrames, thing, maxLength);
  return options.length ? rng.pick(options) : null;
}

/**
 * rewordings is a pure function of its arguments, and every state of a harness rewords the same
 * descriptions: its answers are kept per frame set (one per run) and text, within a bound.
 */
const rewordingCache = new WeakMap<WordLists['descriptionFrames'], Map<string, readonly { text: string; frame: string }[]>>();

function cachedRewordings(
  text: string,
  frames: WordLists['descriptionFrames'],
  thing: 'tool' | 'skill',
  maxLength: number,
): readonly { text: string; frame: string }[] {
  let byText = rewordingCache.get(frames);
  if (!byText) rewordingCache.set(frames, (byText = new Map()));
  const key = `${thing}\u0000${maxLength}\u0000${text}`;
  let out = byText.get(key);
  if (out === undefined) {
    if (byText.size >= 4_096) byText.clear();
    byText.set(key, (out = rewordings(text, frames, thing, maxLength)));
  }
  return out;
}
