// The live page: polls this port's /runtime once a second, keeps the last minutes, draws them with uPlot, and sends
// heavy requests and a light load to the service's port as a client would (no-cors: the answers are opaque, their
// timing is not). Each heavy request sent is marked on every chart. No build step, no network beyond this server.
(() => {
  'use strict';
  const KEEP = 300;                     // points kept: five minutes at one a second
  const state = { x: [], series: {}, marks: [], light: [], workers: new Map(), gone: false, config: null };
  const charts = [];

  // chart id -> title and its series (label, how to read it from a poll)
  const layout = [
    { id: 'carrier-delay', title: 'carrier delay, ms (the last 10 s; late now: the probe right now)', series: [
      ['p50', r => r.carrierDelay?.last10s?.p50Ms],
      ['p99', r => r.carrierDelay?.last10s?.p99Ms],
      ['max', r => r.carrierDelay?.last10s?.maxMs],
      ['late now', r => r.carrierDelay?.lateNowMs]] },
    { id: 'light', title: 'light requests sent by this page, ms (each second)', series: [
      ['p50', (r, light) => light.p50], ['p99', (r, light) => light.p99], ['max', (r, light) => light.max]] },
    { id: 'in-flight', title: 'requests in flight, the crypto pool', series: [
      ['in flight', r => r.requestsInFlight], ['deriving', r => r.derivationsRunning],
      ['queued for a crypto thread', r => r.cryptoQueued]] },
    { id: 'crypto-wait', title: 'crypto queue wait, ms (the last second)', series: [
      ['p99', r => r.cryptoQueueWait?.lastWindow?.p99Ms], ['max', r => r.cryptoQueueWait?.lastWindow?.maxMs]] },
    { id: 'refused', title: 'refused each second (503 overloaded)', series: [
      ['by --limit', (r, l, prev) => delta(r.overload?.refusedByLimit, prev?.overload?.refusedByLimit)],
      ['by --shed-delay', (r, l, prev) => delta(r.overload?.shedByDelay, prev?.overload?.shedByDelay)]] },
    { id: 'pinned-store', title: 'pinned waits each second; the store pool\'s wait p99, ms (the last second)', series: [
      ['pinned', (r, l, prev) => delta(r.pinned?.events, prev?.pinned?.events)],
      ['store pool wait p99', r => r.storePool?.waitMs?.lastWindow?.p99Ms]] },
  ];
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e'];

  function delta(now, before) {
    return now == null || before == null ? null : Math.max(0, now - before);
  }

  function percentile(sorted, p) {
    if (sorted.length === 0) return null;
    return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  }

  // vertical marks for the heavy requests this page sent: red inline, blue pooled
  function marksPlugin() {
    return { hooks: { draw: u => {
      const ctx = u.ctx;
      for (const mark of state.marks) {
        const left = u.valToPos(mark.t, 'x', true);
        if (left < u.bbox.left || left > u.bbox.left + u.bbox.width) continue;
        ctx.save();
        ctx.strokeStyle = mark.kind === 'inline' ? '#d62728' : '#1f77b4';
        ctx.setLineDash([4, 4]);
        ctx.beginPath();
        ctx.moveTo(left, u.bbox.top);
        ctx.lineTo(left, u.bbox.top + u.bbox.height);
        ctx.stroke();
        ctx.restore();
      }
    } } };
  }

  function makeCharts() {
    const holder = document.getElementById('charts');
    for (const chart of layout) {
      const box = document.createElement('div');
      box.className = 'chart';
      box.id = 'chart-' + chart.id;
      const h = document.createElement('h2');
      h.textContent = chart.title;
      box.appendChild(h);
      holder.appendChild(box);
      for (const [label] of chart.series) state.series[chart.id + ':' + label] = [];
      const opts = {
        width: 520, height: 220, plugins: [marksPlugin()],
        scales: { x: { time: true } },
        series: [{}].concat(chart.series.map(([label], i) => ({ label, stroke: colors[i % colors.length],
          spanGaps: false, points: { show: false } }))),
        axes: [{}, { size: 60 }],
      };
      charts.push({ chart, plot: new uPlot(opts, data(chart), box) });
    }
  }

  function data(chart) {
    return [state.x].concat(chart.series.map(([label]) => state.series[chart.id + ':' + label]));
  }

  // the light requests answered in the last second, as p50, p99 and max
  function lightSecond(now) {
    const recent = state.light.filter(l => l.done > now - 1000).map(l => l.ms).sort((a, b) => a - b);
    state.light = state.light.filter(l => l.done > now - 60000);
    return { p50: percentile(recent, 0.5), p99: percentile(recent, 0.99), max: recent.length ? recent[recent.length - 1] : null };
  }

  let previous = null;
  async function poll() {
    let report;
    try {
      const answer = await fetch('/runtime', { cache: 'no-store' });
      report = await answer.json();
      if (report.pid == null || report.carrierDelay === undefined) throw new Error('not a loan-runtime');
      setStatus(true);
    } catch (e) {
      setStatus(false, e.message === 'not a loan-runtime' ? 'not a loan-runtime' : 'server gone');
      return;
    }
    const now = Date.now();
    const light = lightSecond(now);
    state.x.push(now / 1000);
    for (const chart of layout) {
      for (const [label, read] of chart.series) {
        const v = read(report, light, previous);
        state.series[chart.id + ':' + label].push(v == null || Number.isNaN(v) ? null : v);
      }
    }
    if (state.x.length > KEEP) {
      state.x.shift();
      for (const key of Object.keys(state.series)) state.series[key].shift();
    }
    state.marks = state.marks.filter(m => m.t >= state.x[0]);
    state.workers.set(report.pid, { worker: report.workerId, seen: now });
    describe(report, now);
    previous = report;
    for (const { chart, plot } of charts) plot.setData(data(chart));
  }

  function describe(r, now) {
    const model = r.threadModel === 'platform'
      ? `platform threads (${r.platformThreads} handlers)`
      : `virtual threads on ${r.carriers} carrier${r.carriers === 1 ? '' : 's'}`;
    const recent = [...state.workers.entries()].filter(([, w]) => w.seen > now - 60000);
    const who = r.workerId > 0
      ? `worker ${r.workerId} (pid ${r.pid}) answered` + (recent.length > 1
        ? `; ${recent.length} workers answered in the last minute (one port, each poll reaches one at random)` : '')
      : `pid ${r.pid}`;
    document.getElementById('model').textContent =
      `${model}; crypto pool of ${r.cryptoThreads} (queue ${r.cryptoQueue}); --limit ${r.overload?.limit ?? '?'}; ` +
      `scrypt ${r.hasher}; Java ${r.javaVersion}; ${who}`;
  }

  function setStatus(up, why) {
    const status = document.getElementById('status');
    state.gone = !up;
    status.textContent = up ? '' : '(' + why + ')';
    status.className = up ? '' : 'gone';
  }

  function serviceUrl(path) {
    return `${location.protocol}//${location.hostname}:${state.config.servicePort}${path}`;
  }

  function sendHeavy(kind) {
    const n = Math.max(1, Math.min(32, parseInt(document.getElementById('heavy-count').value, 10) || 1));
    const path = kind === 'inline' ? '/member/verify-blocking' : '/member/verify-pooled';
    state.marks.push({ t: Date.now() / 1000, kind });
    for (let i = 0; i < n; i++) {
      fetch(serviceUrl(path), { mode: 'no-cors', cache: 'no-store' }).catch(() => {});
    }
    for (const { plot } of charts) plot.redraw(false);
  }

  let lightTimer = null;
  function toggleLight() {
    const button = document.getElementById('light-toggle');
    if (lightTimer) {
      clearInterval(lightTimer);
      lightTimer = null;
      button.textContent = 'start';
      return;
    }
    const rate = Math.max(1, Math.min(200, parseInt(document.getElementById('light-rate').value, 10) || 1));
    lightTimer = setInterval(() => {
      const start = performance.now();
      fetch(serviceUrl('/books'), { mode: 'no-cors', cache: 'no-store' })
        .then(() => state.light.push({ done: Date.now(), ms: performance.now() - start }))
        .catch(() => {});
    }, 1000 / rate);
    button.textContent = 'stop';
  }

  // what a test (or a curious reader, in the console) can ask: a series' largest value in the kept minutes, its last
  window.loanLive = {
    state,
    max: (chart, label) => Math.max(-Infinity, ...(state.series[chart + ':' + label] || []).filter(v => v != null)),
    last: (chart, label) => (state.series[chart + ':' + label] || []).at(-1) ?? null,
    points: () => state.x.length,
  };

  async function start() {
    state.config = await (await fetch('/live/config', { cache: 'no-store' })).json();
    makeCharts();
    document.getElementById('heavy-inline').addEventListener('click', () => sendHeavy('inline'));
    document.getElementById('heavy-pooled').addEventListener('click', () => sendHeavy('pooled'));
    document.getElementById('light-toggle').addEventListener('click', toggleLight);
    await poll();
    setInterval(poll, 1000);
  }
  start();
})();
