// SPDX-License-Identifier: GPL-3.0-or-later

/// The remote's page: every asset inside the binary, nothing fetched from anywhere else, works
/// offline. Big touch targets (at least 56 px), portrait phone and tablet layouts, dark and high
/// contrast. It keeps no state of its own: it draws each state message the player sends and
/// sends the commands `practice ctl` sends.
enum RemotePage {
    struct Asset { let type: String; let body: String }

    static let assets: [String: Asset] = [
        "/": Asset(type: "text/html; charset=utf-8", body: html),
        "/app.js": Asset(type: "text/javascript; charset=utf-8", body: script),
        "/app.css": Asset(type: "text/css; charset=utf-8", body: style),
    ]

    /// Answer to a pairing: on to the remote by the page's own navigation.
    static let paired = """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\
        <title>practice: paired</title><link rel="stylesheet" href="/app.css"><script src="/app.js" defer></script></head>\
        <body data-paired><p class="note">Paired. Opening the remote…</p></body></html>
        """

    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width,initial-scale=1,viewport-fit=cover">
        <meta name="color-scheme" content="dark">
        <title>practice remote</title>
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <header><span id="title">practice</span><span id="link" class="link">connecting…</span></header>
        <main>
          <section id="now" aria-live="polite">
            <div id="position">0:00.0</div>
            <div id="speed">1.00×</div>
            <div id="section">–</div>
            <div id="eight"></div>
            <div id="lyric"></div>
            <div id="loop"></div>
            <div id="message" role="status"></div>
          </section>
          <section id="pad">
            <button id="toggle" class="wide" data-do="toggle">Play</button>
            <button data-do="previous">◀ Marker</button>
            <button data-do="next">Marker ▶</button>
            <button data-do="slower">−0.05</button>
            <button data-do="faster">+0.05</button>
            <button data-do="again">Again</button>
            <button id="looping" data-do="looping">Loop</button>
            <button id="passes" data-do="passes">Passes ∞</button>
            <button id="countin" data-do="countin">Count-in</button>
          </section>
          <section id="picture" hidden>
            <button id="video" data-do="video">Video</button>
            <button id="mirror" data-do="mirror">Mirror</button>
          </section>
          <section id="presets">
            <button data-rate="0.5">0.5</button><button data-rate="0.6">0.6</button><button data-rate="0.7">0.7</button>
            <button data-rate="0.75">0.75</button><button data-rate="0.8">0.8</button><button data-rate="0.9">0.9</button>
            <button data-rate="1">1.0</button>
          </section>
          <form id="mark"><input id="markname" maxlength="80" placeholder="Marker name" autocomplete="off"><button>Marker here</button></form>
          <ol id="markers"></ol>
        </main>
        </body>
        </html>
        """

    static let style = """
        :root{--bg:#000;--fg:#fff;--dim:#bbb;--key:#1d1d1d;--edge:#fff;--on:#ffd400;--bad:#ff6b6b}
        *{box-sizing:border-box}
        html,body{margin:0;background:var(--bg);color:var(--fg);font:18px/1.35 system-ui,sans-serif}
        header{display:flex;justify-content:space-between;gap:8px;padding:10px 14px;border-bottom:2px solid var(--edge)}
        #title{font-weight:700;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
        .link{color:var(--dim)}.link.live{color:var(--on)}.link.down{color:var(--bad)}
        main{padding:12px;display:grid;gap:14px;max-width:1100px;margin:auto}
        #now{text-align:center}
        #position{font-size:56px;font-weight:800;font-variant-numeric:tabular-nums}
        #speed{font-size:28px;color:var(--on)}
        #section{font-size:24px;font-weight:700}
        #eight{font-size:40px;font-weight:800;min-height:1.2em}
        #lyric{font-size:22px;min-height:1.4em}
        #loop,#message{color:var(--dim);min-height:1.3em}
        #message.bad{color:var(--bad)}
        button,input{font:inherit;color:var(--fg);background:var(--key);border:2px solid var(--edge);border-radius:10px;min-height:56px;min-width:56px;padding:8px}
        button:active,button.on{background:var(--on);color:#000}
        #pad{display:grid;grid-template-columns:repeat(2,1fr);gap:10px}
        #pad .wide{grid-column:1/-1;min-height:80px;font-size:28px;font-weight:800}
        #presets{display:grid;grid-template-columns:repeat(4,1fr);gap:8px}
        #picture:not([hidden]){display:grid;grid-template-columns:repeat(2,1fr);gap:10px}
        #mark{display:grid;grid-template-columns:1fr auto;gap:8px}
        #markers{list-style:none;margin:0;padding:0;display:grid;gap:6px}
        #markers button{width:100%;text-align:left;display:flex;justify-content:space-between}
        #markers button.here{border-color:var(--on)}
        .note{padding:20px;font-size:22px}
        @media (min-width:700px){main{grid-template-columns:1fr 1fr}#now{grid-column:1/-1}#pad{grid-template-columns:repeat(3,1fr)}#presets{grid-template-columns:repeat(7,1fr);grid-column:1/-1}}
        @media (prefers-contrast:more){:root{--key:#000;--dim:#fff}}
        """

    static let script = """
        'use strict';
        if (document.body && document.body.hasAttribute('data-paired')) { location.replace('/'); }
        (() => {
          const $ = (id) => document.getElementById(id);
          let ws = null, state = null, at = 0, markers = [], tempo = null, retry = 0, closedFor = null;
          // The heard position now: the player sends it when the page could not foresee it, and
          // while it moves (view.moving) the page moves it on at the rate, to the loop's or the track's end.
          const heard = () => {
            const s = state; if (!s) return 0; if (!(s.view && s.view.moving)) return s.position;
            const end = s.loop && s.loop.on ? s.loop.end : s.duration;
            return Math.min(s.position + s.rate * (performance.now() - at) / 1000, Math.max(end, s.position));
          };
          const drawPosition = () => { if (state) $('position').textContent = fmt(heard()) + (state.finished ? ' · the end' : ''); };
          const fmt = (t) => { t = Math.max(0, t || 0); const m = Math.floor(t / 60), s = t - 60 * m; return m + ':' + (s < 10 ? '0' : '') + s.toFixed(1); };
          const say = (text, bad) => { const m = $('message'); m.textContent = text || ''; m.className = bad ? 'bad' : ''; };
          const link = (text, cls) => { const l = $('link'); l.textContent = text; l.className = 'link ' + (cls || ''); };
          const send = (o) => { if (ws && ws.readyState === 1) ws.send(JSON.stringify(o)); else say('not connected', true); };
          function setLoop(change, fromA) {
            const l = state && state.loop; if (!l) { say('no loop: set one on the player or jump to a section', true); return; }
            const loop = { start: l.start, end: l.end, rehearsal: Object.assign({}, l.rehearsal || {}) };
            if (l.name) loop.name = l.name; if (l.times) loop.times = l.times;
            change(loop);
            send({ cmd: 'setloop', loop: loop, keepingCount: !fromA, on: true });
            if (fromA) send({ cmd: 'jump', to: loop.start });   // passes count from A, as p does on the screen
          }
          const actions = {
            toggle: () => send({ cmd: 'toggle' }),
            again: () => {
              if (state && state.loop && state.loop.on) { send({ cmd: 'rewind' }); send({ cmd: 'play' }); return; }
              const here = heard(); let start = 0;
              for (const m of markers) if (m.time <= here + 0.0005) start = m.time;
              send({ cmd: 'jump', to: start });
            },
            previous: () => send({ cmd: 'previous' }),
            next: () => send({ cmd: 'next' }),
            slower: () => send({ cmd: 'rate', value: Math.round(((state ? state.rate : 1) - 0.05) * 100) / 100 }),
            faster: () => send({ cmd: 'rate', value: Math.round(((state ? state.rate : 1) + 0.05) * 100) / 100 }),
            looping: () => { if (!state || !state.loop) { say('no loop: set one on the player', true); return; } send({ cmd: 'looping', on: !state.loop.on }); },
            passes: () => setLoop((l) => { const order = [undefined, 3, 5, 10]; const k = order.indexOf(l.times); l.times = order[(k + 1) % order.length]; if (!l.times) delete l.times; }, true),
            video: () => send({ cmd: 'video' }),
            mirror: () => send({ cmd: 'mirror' }),
            countin: () => setLoop((l) => { const r = l.rehearsal; if (r.countIn > 0) { r.countIn = 0; } else { r.countIn = 4; r.countInEvery = true; if (!r.bpm && tempo) r.bpm = tempo; } }),
          };
          document.addEventListener('click', (e) => {
            const b = e.target.closest('button'); if (!b) return;
            if (b.dataset.do) { e.preventDefault(); actions[b.dataset.do](); }
            else if (b.dataset.rate) { e.preventDefault(); send({ cmd: 'rate', value: Number(b.dataset.rate) }); }
            else if (b.dataset.marker) { e.preventDefault(); send({ cmd: 'jump', marker: b.dataset.marker }); }
          });
          $('mark').addEventListener('submit', (e) => {
            e.preventDefault(); const name = $('markname').value.trim();
            if (!name) { say('give the marker a name', true); return; }
            send({ cmd: 'mark', name: name }); $('markname').value = '';
          });
          function drawMarkers() {
            const list = $('markers'); list.textContent = '';
            for (const m of markers) {
              const li = document.createElement('li'), b = document.createElement('button');
              b.dataset.marker = m.name; const n = document.createElement('span'); n.textContent = m.name;
              const t = document.createElement('span'); t.textContent = fmt(m.time); b.append(n, t); li.append(b); list.append(li);
            }
          }
          function draw() {
            const s = state; if (!s) return; const v = s.view || {};
            $('title').textContent = s.title || 'practice';
            drawPosition();
            $('speed').textContent = s.rate.toFixed(2) + '×' + (s.pitch ? '  ' + (s.pitch > 0 ? '+' : '') + s.pitch + ' st' : '');
            $('section').textContent = v.section || '–';
            $('eight').textContent = v.eight ? v.eight.name + ' ' + v.eight.group + ' · ' + v.eight.beat : '';
            $('lyric').textContent = v.lyric || '';
            const l = s.loop;
            $('loop').textContent = l ? 'loop ' + (l.name ? l.name + ' ' : '') + fmt(l.start) + '–' + fmt(l.end) + (l.on ? ', pass ' + l.pass + (l.times ? '/' + l.times : '') : ', off') + (l.countIn ? ', count-in ' + l.countIn.beat + ' of ' + l.countIn.of : '') : 'no loop';
            $('toggle').textContent = s.playing ? 'Pause' : 'Play';
            $('looping').classList.toggle('on', !!(l && l.on));
            $('passes').textContent = 'Passes ' + (l && l.times ? l.times : '∞');
            $('countin').classList.toggle('on', !!(l && l.rehearsal && l.rehearsal.countIn > 0));
            $('picture').hidden = !s.video;
            $('video').classList.toggle('on', !!(s.video && s.video.shown));
            $('mirror').classList.toggle('on', !!s.mirror);
            for (const b of document.querySelectorAll('#markers button')) b.classList.toggle('here', b.dataset.marker === v.section);
            if ('mediaSession' in navigator) {
              navigator.mediaSession.playbackState = s.playing ? 'playing' : 'paused';
              const m = navigator.mediaSession.metadata, album = v.section || '';
              if (window.MediaMetadata && (!m || m.title !== (s.title || 'practice') || m.album !== album)) {
                navigator.mediaSession.metadata = new MediaMetadata({ title: s.title || 'practice', artist: (s.tags && s.tags.artist) || '', album: album });
              }
            }
          }
          function connect() {
            link(retry ? 'reconnecting…' : 'connecting…', 'down');
            ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
            ws.onopen = () => { retry = 0; closedFor = null; link('live', 'live'); say(''); };
            ws.onmessage = (e) => {
              let o; try { o = JSON.parse(e.data); } catch (x) { return; }
              if (o.event === 'markers') { markers = o.markers || []; tempo = o.tempo || null; drawMarkers(); draw(); }
              else if (o.event === 'full' || o.event === 'state') {
                state = o; at = performance.now(); draw();
                // The page is live: drawn from the player's state (what the bench reads as "interactive").
                if (!performance.getEntriesByName('practice-live').length) performance.mark('practice-live');
              }
              else if (o.event === 'error') say(o.message, true);
            };
            ws.onclose = (e) => {
              ws = null;
              if (e.code === 1001) { link('the player has quit', 'down'); closedFor = 'quit'; }
              else if (e.code === 1008) { link('unpaired: scan the code on the player again', 'down'); return; }
              else if (e.reason) say(e.reason, true);
              retry++;
              setTimeout(check, Math.min(500 * retry, 3000));
            };
          }
          // Before each reconnection: still paired? (401: pair again; no answer: the network or the player is away.)
          function check() {
            fetch('/app.css', { cache: 'no-store', credentials: 'same-origin' }).then((r) => {
              if (r.status === 401) { link('not paired: scan the code on the player again', 'down'); return; }
              connect();
            }).catch(() => { link(closedFor === 'quit' ? 'the player has quit' : 'reconnecting…', 'down'); retry++; setTimeout(check, Math.min(500 * retry, 3000)); });
          }
          if ('mediaSession' in navigator) {
            const h = { play: () => send({ cmd: 'play' }), pause: () => send({ cmd: 'pause' }), previoustrack: actions.previous, nexttrack: actions.next };
            for (const k in h) { try { navigator.mediaSession.setActionHandler(k, h[k]); } catch (x) {} }
          }
          setInterval(() => { if (state && state.view && state.view.moving) drawPosition(); }, 50);
          if (!document.body.hasAttribute('data-paired')) connect();
        })();
        """
}
