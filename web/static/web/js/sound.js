// Short sounds for the owner's board: a move, a deal, a completed suit, a win and a refused
// move. They are made by the Web Audio API (no sound files to fetch), only while the
// preference is on (prefs.js), and the audio context is made at the first sound, which a
// click or a key has caused (browsers start audio only after a gesture).

import { prefs } from "./prefs.js";

// Each sound: notes of [frequency Hz, start s, length s], a waveform and a volume.
const SOUNDS = {
  move: { notes: [[520, 0, 0.06]], wave: "triangle", volume: 0.12 },
  deal: { notes: [[330, 0, 0.05], [392, 0.05, 0.05], [440, 0.1, 0.06]], wave: "triangle", volume: 0.12 },
  suit: { notes: [[523, 0, 0.09], [659, 0.08, 0.09], [784, 0.16, 0.14]], wave: "sine", volume: 0.16 },
  win: { notes: [[523, 0, 0.12], [659, 0.12, 0.12], [784, 0.24, 0.12], [1047, 0.36, 0.3]], wave: "sine", volume: 0.18 },
  refused: { notes: [[180, 0, 0.12]], wave: "square", volume: 0.05 },
};
let context = null;

/** Play the sound `name` (SOUNDS) if sounds are on; never throws. */
export function play(name) {
  const sound = SOUNDS[name];
  if (!sound || !prefs().sound) return;
  try {
    context ??= new AudioContext();
    const now = context.currentTime;
    for (const [frequency, start, length] of sound.notes) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.type = sound.wave;
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(sound.volume, now + start);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(now + start);
      oscillator.stop(now + start + length);
    }
  } catch {
    // no audio here: the game goes on silently
  }
}

/** The sound of `event` (an Event of the API) in a game now `game`. */
export function soundOf(event, game) {
  if (game.status === "won") return "win";
  if (event.effects?.removed?.length) return "suit";
  if (event.type === "dealt") return "deal";
  return event.type === "moved" ? "move" : null;
}
