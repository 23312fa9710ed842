// The simulated backend: pricing rules and what each tool returns.
import { ITEM, ENDS, PROMOS, FAQ } from './catalog.mjs';

// ---------------------------------------------------------------------------------------------
// Simulated backend: what each tool returns
// ---------------------------------------------------------------------------------------------

export function promosOf(roomId) {
  return PROMOS[roomId] ?? [];
}
export function unitPrice(roomId, itemId) {
  let cut = 0;
  for (const p of promosOf(roomId)) if (p.type === 'price_cut' && p.cuts[itemId]) cut += p.cuts[itemId];
  return { list: ITEM[itemId].price, cut, unit: ITEM[itemId].price - cut };
}
export function bestThreshold(roomId, subtotal, only) {
  let best = null;
  for (const p of promosOf(roomId)) {
    if (p.type !== 'threshold' || subtotal < p.threshold) continue;
    if (only && !only.includes(p.campaign_id)) continue;
    if (!best || p.discount > best.discount) best = p;
  }
  return best;
}
export function priceCutCampaign(roomId, itemId) {
  return promosOf(roomId).find((p) => p.type === 'price_cut' && p.cuts[itemId]);
}

export const SIM = {
  get_item_detail(room, { item_id, fields }) {
    const it = ITEM[item_id];
    const out = { item_id, title: it.title };
    for (const f of fields ?? Object.keys(it.detail)) out[f] = it.detail[f] ?? null;
    return out;
  },
  search_items(room, { query, limit }, hits) {
    return {
      query,
      results: hits.slice(0, limit ?? 5).map((h) => ({ item_id: h.id, title: ITEM[h.id].title, room_id: h.room, in_this_room: h.room === room.id })),
    };
  },
  get_room_promotions(room) {
    return {
      room_id: room.id,
      promotions: promosOf(room.id).map((p) =>
        p.type === 'threshold'
          ? { campaign_id: p.campaign_id, type: p.type, title: p.title, threshold: p.threshold, discount: p.discount, ends_at: ENDS }
          : {
              campaign_id: p.campaign_id,
              type: p.type,
              title: p.title,
              items: Object.entries(p.cuts).map(([item_id, cut]) => ({ item_id, cut })),
              ends_at: ENDS,
            },
      ),
    };
  },
  get_campaign_conditions(room, { campaign_id, item_id, include_buyer_resources }) {
    const describe = (p) => ({
      campaign_id: p.campaign_id,
      title: p.title,
      type: p.type,
      ...(p.type === 'threshold'
        ? { threshold: p.threshold, discount: p.discount, eligible_items: 'all items in the room', stackable_with_price_cut: true }
        : { items: Object.entries(p.cuts).map(([id, cut]) => ({ item_id: id, cut })) }),
      per_buyer_limit: p.type === 'threshold' ? 1 : 2,
      starts_at: '2026-08-20 19:30',
      ends_at: ENDS,
    });
    const list = campaign_id
      ? promosOf(room.id).filter((p) => p.campaign_id === campaign_id)
      : promosOf(room.id).filter((p) => p.type === 'threshold' || p.cuts[item_id]);
    const out = campaign_id ? describe(list[0]) : { item_id, campaigns: list.map(describe) };
    if (include_buyer_resources)
      out.buyer_resources = { claimable_coupons: [{ coupon_id: `${list[0].campaign_id}-fans`, title: '粉丝券 满99减5', condition: 'fan club members' }] };
    return out;
  },
  calculate_optimal_promotion(room, { item_id, quantity }) {
    const q = quantity ?? 1;
    const { list, cut, unit } = unitPrice(room.id, item_id);
    const subtotal = unit * q;
    const th = bestThreshold(room.id, subtotal);
    const applied = [];
    const pc = priceCutCampaign(room.id, item_id);
    if (pc) applied.push({ campaign_id: pc.campaign_id, title: pc.title, amount: cut * q });
    if (th) applied.push({ campaign_id: th.campaign_id, title: th.title, amount: th.discount });
    const final = subtotal - (th ? th.discount : 0);
    return { item_id, quantity: q, list_total: list * q, final_price: final, saved: list * q - final, applied, currency: 'CNY' };
  },
  calculate_promotion(room, { item_ids, coupon_ids }) {
    const lines = item_ids.map((id) => ({ item_id: id, ...unitPrice(room.id, id) }));
    const subtotal = lines.reduce((s, l) => s + l.unit, 0);
    const listTotal = lines.reduce((s, l) => s + l.list, 0);
    const th = bestThreshold(room.id, subtotal, coupon_ids);
    const final = subtotal - (th ? th.discount : 0);
    return {
      items: lines.map((l) => ({ item_id: l.item_id, list_price: l.list, unit_price: l.unit })),
      list_total: listTotal,
      final_price: final,
      saved: listTotal - final,
      applied: th ? [{ campaign_id: th.campaign_id, title: th.title, amount: th.discount }] : [],
      currency: 'CNY',
    };
  },
  switch_presentation_order(room, { item_id, position }, queue) {
    return { ok: true, item_id, position, queue };
  },
  lookup_faq(room, { question }, ids) {
    return { question, matches: ids.map((id) => ({ faq_id: id, ...FAQ[id] })) };
  },
  refuse_request(room, { reason }) {
    return { ok: true, reason, action: 'comment hidden from the host queue' };
  },
};
