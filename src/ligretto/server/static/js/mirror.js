// The client's copy of the round: the last snapshot's view with every later event
// applied (docs/protocol.md, "events"), and what can be played where.  The JS twin of
// the Python client model (ligretto/client/mirror.py), pinned to it and to the engine by
// tests/client/test_conformance.py: change both or neither.

import { colourOfLetter, parseCard } from "./cards.js";

/** Where a 1 goes: it starts a new pile (the engine's NEW_PILE; `pile: null` on the wire). */
export const NEW_PILE = -1;

/**
 * Apply one `events` message to a view, in place.  Returns what happened, for the
 * screen to animate: plays (card, from where, onto which pile), completed piles,
 * placements, turns, votes and the end of the round.
 */
export function applyEvents(view, events) {
  const effects = [];
  for (const event of events) {
    const area = event.player === undefined || event.player === null ? null : view.areas[event.player];
    switch (event.type) {
      case "pile_started":
        view.center.push({ index: event.pile, colour: event.colour, top: 0, backs: [] });
        break;
      case "card_played": {
        if (event.source === "row") {
          const column = area.row[event.position];
          column.pop();
        } else {
          area[`${event.source}_size`] -= 1;
          area[`${event.source}_top`] = event.uncovered;
        }
        const pile = view.center[event.pile];
        pile.top += 1;
        pile.backs.push(event.player);
        effects.push({ kind: "played", ...event });
        break;
      }
      case "row_refilled":
        area.row[event.position].push(event.card);
        area.stack_size -= 1;
        area.stack_top = event.stack_top;
        break;
      case "pile_completed":
        effects.push({ kind: "completed", pile: event.pile });
        break;
      case "hand_turned":
        area.hand_size -= event.count;
        area.discard_size += event.count;
        area.discard_top = event.discard_top;
        effects.push({ kind: "turned", player: event.player });
        break;
      case "hand_recycled":
        area.hand_size += event.cards;
        area.discard_size = 0;
        area.discard_top = null;
        break;
      case "card_placed":
        area.row[event.column].push(event.card);
        area[`${event.source}_size`] -= 1;
        area[`${event.source}_top`] = event.uncovered;
        effects.push({ kind: "placed", ...event });
        break;
      case "vote_cast":
        area.voted = true;
        effects.push({ kind: "vote", player: event.player });
        break;
      case "vote_withdrawn":
        area.voted = false;
        break;
      case "votes_cleared":
        for (const each of view.areas) each.voted = false;
        break;
      case "round_stopped":
        view.ending = event.ending;
        view.stopped_by = event.player;
        effects.push({ kind: "stopped", ending: event.ending, player: event.player });
        break;
      default:
        break; // an event type this client does not know changes nothing it shows
    }
  }
  return effects;
}

/** The cards an area may play to the center: row column tops, stack top, discard top. */
export function playableCards(area) {
  const cards = [];
  area.row.forEach((column, position) => {
    if (column.length) cards.push({ source: "row", position, card: column[column.length - 1] });
  });
  if (area.stack_top) cards.push({ source: "stack", position: 0, card: area.stack_top });
  if (area.discard_top) cards.push({ source: "discard", position: 0, card: area.discard_top });
  return cards;
}

/** Whether `card` goes onto `pile` (same colour, next number, not complete). */
export function fitsPile(card, pile) {
  const { letter, number } = parseCard(card);
  return colourOfLetter(letter) === pile.colour && pile.top === number - 1;
}

/**
 * Where a card goes when it is clicked: the first pile it fits, `NEW_PILE` for a 1
 * (it starts a new pile), or `null` when it fits nowhere.
 */
export function targetPile(view, card) {
  if (parseCard(card).number === 1) return NEW_PILE;
  const pile = view.center.find((each) => fitsPile(card, each));
  return pile ? pile.index : null;
}

/** A target pile as a play names it on the wire: `null` for a new pile. */
export function wirePile(pile) {
  return pile === NEW_PILE ? null : pile;
}

/** Expert variant: whether `card` may go onto a row column (one lower, another colour). */
export function fitsColumn(card, column) {
  if (!column.length) return false;
  const under = parseCard(column[column.length - 1]);
  const over = parseCard(card);
  return over.number === under.number - 1 && over.colour !== under.colour;
}
