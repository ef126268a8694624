// A small bar chart drawn by hand in SVG (no library): one bar per match, oldest first,
// for the history page's statistics over time. The numbers are also in the page as text;
// the chart is an image with a label saying what it shows.

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 120;
const PAD = 18;

function node(tag, attrs) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  return element;
}

/**
 * An SVG bar chart of `values` (numbers, oldest first) labelled `label` for screen readers;
 * a zero line, the highest value written at the top left, and each bar's value in its title.
 */
export function barChart(values, label) {
  const svg = node("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "chart", role: "img", "aria-label": label });
  const top = Math.max(1, ...values);
  const low = Math.min(0, ...values);
  const span = top - low;
  const y = (v) => PAD + ((top - v) / span) * (HEIGHT - 2 * PAD);
  const step = (WIDTH - 2 * PAD) / Math.max(1, values.length);
  const width = Math.max(2, Math.min(28, step * 0.7));
  svg.append(node("line", { x1: PAD, x2: WIDTH - PAD, y1: y(0), y2: y(0), class: "chart-axis" }));
  values.forEach((value, i) => {
    const x = PAD + i * step + (step - width) / 2;
    const bar = node("rect", { x, y: Math.min(y(value), y(0)), width, height: Math.max(1, Math.abs(y(value) - y(0))), class: "chart-bar" });
    const title = node("title", {});
    title.textContent = `${i + 1}: ${value}`;
    bar.append(title);
    svg.append(bar);
  });
  const max = node("text", { x: 2, y: 12, class: "chart-label" });
  max.textContent = String(Math.round(top * 10) / 10);
  svg.append(max);
  return svg;
}
