// Front end of simcore.livefigure.LiveFigure: one plotly.js per page, figures patched in place.
//
// plotly.js is not in this module: the page's own copy is used when JupyterLab's plotly extension carries
// the same version (window.Plotly, or evaluated through the extension: labPlotly); otherwise it comes once
// per kernel as the gzipped bytes of the installed plotly package's plotly.min.js, held by a single shared library widget (`_library` refers to
// it), unpacked once per page and shared by every figure. Python sends a full "snapshot" when a figure's
// model appears in the page, then "patch" messages holding only the trace properties and layout keys
// that changed (numeric arrays as binary buffers). The page itself tells the student how long a move took
// (from the input event in a live panel to the last of its plots redrawn, written into the panel's
// `.simcore-wait` note): any message back would wake the kernel once more after every redraw (30-50 ms a
// move on a loaded 2-core machine, measured by benchmarks/bench_browser.py). Only a figure whose Python
// side asked (`on_drawn`, trait `_ack_drawn`) answers {type: "drawn", seq}. Zooming or hovering in the
// page sends no messages to the kernel.

const LIVE = (globalThis.__simcoreLive ??= { plotly: null, figures: new Map() });
const PANEL = ".simcore-live-panel";

// the student's last input in a live panel (page clock): the start of the wait the panel's note reports
if (!LIVE.input) {
  LIVE.input = { t: 0, panel: null };
  for (const type of ["pointerup", "change", "keydown"]) {
    document.addEventListener(type, (e) => {
      if (type === "keydown" && e.key !== "Enter" && !e.key.startsWith("Arrow")) return;
      const panel = e.target && e.target.closest ? e.target.closest(PANEL) : null;
      if (!panel) return;
      LIVE.input = { t: performance.now(), panel };
      const note = panel.querySelector(".simcore-wait .widget-html-content");
      if (note) note.textContent = "";
    }, true);
  }
}

function noteWait(div) {
  const panel = div.closest(PANEL);
  if (!panel || panel !== LIVE.input.panel) return;
  const note = panel.querySelector(".simcore-wait .widget-html-content");
  if (note) note.textContent = `(redrawn ${Math.round(performance.now() - LIVE.input.t)} ms after your move)`;
}
const TYPED = {
  f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array,
  i2: Int16Array, u2: Uint16Array, i1: Int8Array, u1: Uint8Array,
};
const CONFIG = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["toImage"] };

// JupyterLab's own plotly renderer (the jupyterlab-plotly extension of the same plotly package) holds this
// very plotly.js and, once it has evaluated it, leaves it in window.Plotly: reuse it then rather than
// unpack and evaluate a second copy (about 1 s of the page's main thread).
function pagePlotly(version) {
  const P = globalThis.Plotly;
  return P && typeof P.react === "function" && P.version === version ? P : null;
}

// JupyterLab's plotly extension loads its plotly.js (the same file, from the same plotly package) with the
// page, but evaluates it only when it first draws a static plotly output. Have it do so now, through the
// extension's module-federation container and its renderer (a throwaway view of an empty figure): that
// takes about half the main-thread time of unpacking and evaluating our own copy (0.7 s against 1.25 s on
// a loaded 2-core machine, benchmarks/bench_browser.py), and leaves window.Plotly for every later figure.
// Any surprise (another JupyterLab, another plotly, no extension) returns null: our own copy is used.
async function labPlotly(version) {
  try {
    const container = globalThis._JUPYTERLAB && globalThis._JUPYTERLAB["jupyterlab-plotly"];
    if (!container) return null;
    const mod = (await container.get("./mimeExtension"))();
    const Renderer = mod.RenderedPlotly;
    if (!Renderer || !(Renderer.loadingPlotly instanceof Promise) || !mod.MIME_TYPE) return null;
    let drawing = Promise.resolve();
    if (Renderer.Plotly === null) {
      const view = new Renderer({ mimeType: mod.MIME_TYPE });
      drawing = view.renderModel({ data: { [mod.MIME_TYPE]: { data: [], layout: {} } }, metadata: {},
                                   setData() {} });
      drawing.finally(() => view.dispose()).catch(() => {});
    }
    await Promise.race([Renderer.loadingPlotly, drawing]);  // `drawing` fails if plotly.js did not load
    await Renderer.loadingPlotly;
    return pagePlotly(version) || (Renderer.Plotly && Renderer.Plotly.version === version ? Renderer.Plotly : null);
  } catch (err) {
    return null;
  }
}

// How long to wait for the extension's plotly.js before unpacking our own (it takes ~0.7 s when it works).
const LAB_PLOTLY_WAIT_MS = 5000;

// Start unpacking plotly.js from the library model (at most once per page).
function fromLibrary(library) {
  if (!LIVE.plotly) {
    LIVE.plotly = (async () => {
      const own = pagePlotly(library.get("version")) || await Promise.race([
        labPlotly(library.get("version")),
        new Promise((resolve) => setTimeout(() => resolve(null), LAB_PLOTLY_WAIT_MS)),  // never hang on it
      ]);
      if (own) return own;
      const gz = library.get("bundle_gz");
      const bytes = gz instanceof DataView ? new Uint8Array(gz.buffer, gz.byteOffset, gz.byteLength) : gz;
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      const source = await new Response(stream).text();
      const module = { exports: {} };
      new Function("module", "exports", "define", source)(module, module.exports, undefined);
      return module.exports;
    })();
    LIVE.plotly.catch(() => { LIVE.plotly = null; });
  }
  return LIVE.plotly;
}

async function loadPlotly(model) {
  if (LIVE.plotly) return LIVE.plotly;
  const ref = String(model.get("_library")).replace(/^IPY_MODEL_/, "");
  return fromLibrary(await model.widget_manager.get_model(ref));
}

// A large message comes deflated (zlib) in one buffer: {type: "packed", sizes: [JSON bytes, buffer bytes...]}.
async function unpack(msg, buffers) {
  if (msg.type !== "packed") return [msg, buffers];
  const dv = buffers[0];
  const bytes = dv instanceof DataView ? new Uint8Array(dv.buffer, dv.byteOffset, dv.byteLength) : new Uint8Array(dv);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  const all = await new Response(stream).arrayBuffer();
  let offset = 0;
  const parts = msg.sizes.map((n) => { const part = new DataView(all, offset, n); offset += n; return part; });
  return [JSON.parse(new TextDecoder().decode(parts[0])), parts.slice(1)];
}

function decode(value, buffers, strings) {
  if (Array.isArray(value)) return value.map((v) => decode(v, buffers, strings));
  if (value && typeof value === "object") {
    if ("__strs__" in value) return Array.from(decode(value.index, buffers), (i) => value.__strs__[i]);
    if ("__stri__" in value) return Array.from(decode(value.__stri__, buffers), (i) => strings[i]);
    if ("__nd__" in value) {  // an index into the message's buffers, or (widget state) the bytes
      const dv = typeof value.__nd__ === "number" ? buffers[value.__nd__] : value.__nd__;
      return new TYPED[value.dtype](dv.buffer.slice(dv.byteOffset, dv.byteOffset + dv.byteLength));
    }
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = decode(v, buffers, strings);
    return out;
  }
  return value;
}

// plotly.js writes into the objects it is given (uids, computed ranges): hand it copies, so the
// figure's own state stays what Python sent. Typed arrays are shared, never written.
function clone(value) {
  if (Array.isArray(value)) return value.map(clone);
  if (value && typeof value === "object" && !ArrayBuffer.isView(value)) {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = clone(v);
    return out;
  }
  return value;
}

function applyPatch(fig, msg, buffers) {
  if (msg.type === "snapshot") {
    fig.data = decode(msg.data, buffers);
    fig.layout = decode(msg.layout, buffers);
    return;
  }
  for (const [i, props] of Object.entries(msg.traces || {})) {
    const trace = (fig.data[Number(i)] ??= {});
    for (const [k, v] of Object.entries(props)) {
      if (v === null) delete trace[k];
      else trace[k] = decode(v, buffers, msg.strings);
    }
  }
  fig.data.length = msg.n_traces;
  for (const [k, v] of Object.entries(msg.layout || {})) {
    if (v === null) delete fig.layout[k];
    else fig.layout[k] = decode(v, buffers, msg.strings);
  }
}

// Each plot is a fixed-size box (its layout's height) with `contain: strict`: the text measurements
// plotly makes while redrawing then lay out that box only, not the whole notebook around it (every
// cell stays in the page), which took a good part of a redraw in JupyterLab.
function size(div, height) {
  div.style.height = `${height}px`;
  div.style.contain = "strict";
}

async function draw(Plotly, div, fig) {
  const layout = clone(fig.layout);
  layout.datarevision = fig.seq;
  if (layout.height) size(div, layout.height);
  await Plotly.react(div, fig.data.map(clone), layout, CONFIG);
}

async function redrawAll(fig) {
  const Plotly = await LIVE.plotly;
  await Promise.all([...fig.views].map(async (div) => { await draw(Plotly, div, fig); noteWait(div); }));
}

// Patches flagged `more` (LivePanel sends one per figure, all but the last flagged) wait for the last:
// then every figure of the move is redrawn in the same task, so the browser lays out and paints once.
// A timer draws them anyway should the last never come.
function flushHeld() {
  clearTimeout(LIVE.heldTimer);
  const pending = [...(LIVE.held || new Map()).values()];
  LIVE.held = new Map();
  for (const go of pending) go();
}

function figureOf(model) {
  const id = model.get("_uid");
  if (!LIVE.figures.has(id)) LIVE.figures.set(id, { data: [], layout: {}, seq: -1, views: new Set() });
  return LIVE.figures.get(id);
}

export default {
  initialize({ model }) {
    // the library model (this module is its front end too): unpack plotly.js as soon as it arrives,
    // which is when `import simcore.plotting` runs in a kernel, while the kernel goes on importing
    if (model.get("_uid") === undefined) {
      fromLibrary(model);
      return;
    }
    const fig = figureOf(model);
    loadPlotly(model);
    const apply = (msg, buffers) => {
      if (msg.seq <= fig.seq) return;
      applyPatch(fig, msg, buffers || []);
      fig.seq = msg.seq;
      const go = () => redrawAll(fig).then(
        () => { if (model.get("_ack_drawn")) model.send({ type: "drawn", seq: msg.seq }); },
        (err) => console.warn("simcore live figure: redraw failed", err),
      );
      if (msg.more) {
        if (!fig.views.size) return;
        (LIVE.held ??= new Map()).set(fig, go);
        clearTimeout(LIVE.heldTimer);
        LIVE.heldTimer = setTimeout(flushHeld, 250);
        return;
      }
      flushHeld();  // the move's last figure (shown or not): draw what waited for it
      if (fig.views.size) go();
    };
    // the state Python keeps current until this page has shown the figure: no round trip to a kernel
    // that may still be busy running the notebook's later cells
    const fromState = () => {
      const snap = model.get("_snapshot");
      if (snap && snap.seq !== undefined) apply({ type: "snapshot", ...snap }, []);
    };
    fromState();
    model.on("change:_snapshot", fromState);
    // messages are applied in the order they came, for every figure of the page (unpacking one is async)
    model.on("msg:custom", (msg, buffers) => {
      LIVE.inbox = (LIVE.inbox || Promise.resolve()).then(() => unpack(msg, buffers || [])).then(([m, b]) => {
        if (m.type === "snapshot" || m.type === "patch") apply(m, b);
      }).catch((err) => console.warn("simcore live figure: bad message", err));
    });
    model.send({ type: "hello", seq: fig.seq });
  },
  async render({ model, el }) {
    const fig = figureOf(model);
    const div = document.createElement("div");
    div.className = "simcore-live-figure";
    div.style.width = "100%";
    size(div, fig.layout.height || model.get("_height") || 400);
    el.appendChild(div);
    const Plotly = await loadPlotly(model);
    fig.views.add(div);
    if (fig.seq >= 0) {
      await draw(Plotly, div, fig);
      if (model.get("_ack_drawn")) model.send({ type: "drawn", seq: fig.seq });
    }
    return () => {
      fig.views.delete(div);
      Plotly.purge(div);
    };
  },
};
