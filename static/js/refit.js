// Refit's few lines of page behaviour on top of htmx (which comes from django-htmx).
(function () {
  "use strict";

  // A page whose campaign socket is open gets its fragments through the socket, in
  // the order of the campaign's changes; its actions say so, and the server answers
  // them without fragments.  A page without a live socket gets them in the answer.
  function isCampaignSocket(elt) {
    return elt && elt.hasAttribute && elt.hasAttribute("data-campaign-socket");
  }
  // Each time the campaign socket (re)connects, it says what each part of the page
  // shows now (its fingerprint, data-fp): the server sends only the parts that
  // differ, so a part the player is clicking or typing in is not re-drawn for nothing.
  var openSocket = htmx.createWebSocket;
  htmx.createWebSocket = function (url) {
    if (url.indexOf("/ws/campaigns/") >= 0) {
      var shows = [];
      document.querySelectorAll("[data-part][data-fp]").forEach(function (el) {
        shows.push(el.dataset.part + "." + el.dataset.fp);
      });
      url += (url.indexOf("?") >= 0 ? "&" : "?") + "shows=" + shows.join(",");
    }
    return openSocket(url);
  };
  // The page is live while its current socket is open (a socket it replaced may
  // report its close after the new one opened).
  var socket = null; // the open campaign socket (a WebSocket)
  var wrapper = null; // htmx's handle on it, which can reconnect it
  document.addEventListener("htmx:wsOpen", function (evt) {
    if (!isCampaignSocket(evt.target)) return;
    socket = evt.detail.event.target;
    wrapper = evt.detail.socketWrapper;
    document.body.dataset.live = "1";
  });
  document.addEventListener("htmx:wsClose", function (evt) {
    if (isCampaignSocket(evt.target) && evt.detail.event.target === socket) {
      socket = null;
      delete document.body.dataset.live;
    }
  });
  document.addEventListener("htmx:wsError", function (evt) {
    if (isCampaignSocket(evt.target) && evt.detail.error.target === socket) {
      socket = null;
      delete document.body.dataset.live;
    }
  });
  document.addEventListener("htmx:configRequest", function (evt) {
    if (document.body.dataset.live === "1") evt.detail.headers["X-Refit-Live"] = "1";
  });

  // An action taken through a live page is answered without its change, which the
  // socket brings at once.  If nothing has come RESYNC_MS after the answer (a push
  // lost on its way: a channel layer that forgot the page's groups, a render that
  // failed), the page reconnects its socket: the new socket says what each part
  // shows and is sent the parts that differ.  A click is never left unanswered until
  // the next periodic resync.
  var RESYNC_MS = 3000;
  var frames = 0; // socket messages received so far
  var resync = null;
  document.addEventListener("htmx:wsAfterMessage", function (evt) {
    if (!isCampaignSocket(evt.target)) return;
    frames += 1;
    clearTimeout(resync);
    resync = null;
  });
  document.addEventListener("htmx:beforeRequest", function (evt) {
    evt.detail.xhr.refitFrames = frames;
  });
  document.addEventListener("htmx:afterRequest", function (evt) {
    var config = evt.detail.requestConfig;
    var live = config && config.verb === "post" && config.headers["X-Refit-Live"] === "1";
    // A frame since the request was sent may be its change, pushed before the answer.
    if (!live || !evt.detail.successful || frames !== evt.detail.xhr.refitFrames) return;
    clearTimeout(resync);
    resync = setTimeout(function () {
      resync = null;
      if (socket && wrapper) wrapper.reconnect();
    }, RESYNC_MS);
  });

  // One click, one action: the buttons of a form being posted (and the buttons
  // outside it that name it, as the RG chart's prices do) are disabled until the page
  // shows the answer — at once for a refusal or an answer that carries its parts, at
  // the next frame of the socket for a live page (its change comes that way), or when
  // the reconnect above has brought it.  A double-click is one purchase.
  // The server does the same: every post carries the page's token (X-Refit-Once),
  // renewed when an answer arrives, and the same form posted again with the same
  // token (a second click that got through before the answer) is answered as the
  // first was, never acted on twice.  A click after the answer is a new action.
  function newToken() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }
  var once = newToken();
  document.addEventListener("htmx:configRequest", function (evt) {
    if (evt.detail.verb === "post") evt.detail.headers["X-Refit-Once"] = once;
  });
  // Renewed by the answer to a post only: a read answered between two clicks (the
  // digest's, a resync's) must not turn the second click into a new action.
  document.addEventListener("htmx:afterRequest", function (evt) {
    if (evt.detail.requestConfig && evt.detail.requestConfig.verb === "post") once = newToken();
  });
  var busy = []; // buttons disabled until the page shows what they did
  function buttonsOf(form) {
    var found = Array.prototype.slice.call(form.querySelectorAll("button, input[type=submit]"));
    if (form.id) {
      document.querySelectorAll('[form="' + CSS.escape(form.id) + '"]').forEach(function (b) {
        if (b.matches("button, input[type=submit]")) found.push(b);
      });
    }
    return found;
  }
  function release() {
    busy.forEach(function (b) { b.disabled = false; b.removeAttribute("aria-busy"); });
    busy = [];
    refocusPressed();
  }
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var config = evt.detail.requestConfig;
    var form = formOf(evt.detail.elt);
    if (!form || !config || config.verb !== "post") return;
    rememberPressed(); // before its button is disabled (which drops the focus)
    buttonsOf(form).forEach(function (b) {
      if (b.disabled) return;
      b.disabled = true;
      b.setAttribute("aria-busy", "true");
      busy.push(b);
    });
  });
  document.addEventListener("htmx:afterRequest", function (evt) {
    var config = evt.detail.requestConfig;
    var live = config && config.verb === "post" && config.headers["X-Refit-Live"] === "1";
    if (!live || !evt.detail.successful || frames !== evt.detail.xhr.refitFrames) release();
    else setTimeout(release, RESYNC_MS * 2); // never a button left dead
  });
  document.addEventListener("htmx:wsAfterMessage", function (evt) {
    if (isCampaignSocket(evt.target)) release();
  });
  document.addEventListener("htmx:wsClose", release);

  // The page keeps its place across an answer or a push (issue 47).  A box that
  // scrolls inside the page (the RG chart) keeps its scroll offsets, taken before the
  // first swap of a change and put back after each.
  // The messages' thread (the latest ones, oldest first, in a box of its own) shows
  // its newest: it opens at its end, and a message arriving, or sent, is in sight,
  // unless the player has scrolled up to reread an older one (he stays there).
  var boxes = null;
  var followThread = false; // the player has just sent a message: he sees it
  function atEnd(el) {
    return el.scrollTop + el.clientHeight >= el.scrollHeight - 2;
  }
  function threadToEnd() {
    var thread = document.getElementById("message-thread");
    if (thread) thread.scrollTop = thread.scrollHeight;
  }
  function rememberBoxes() {
    if (boxes !== null) return;
    boxes = {};
    document.querySelectorAll(".scroll[id], #message-thread").forEach(function (el) {
      boxes[el.id] = [el.scrollTop, el.scrollLeft, el.id === "message-thread" && atEnd(el)];
    });
  }
  function restoreBoxes() {
    var thread = document.getElementById("message-thread");
    var was = thread && boxes ? boxes[thread.id] : null;
    if (thread && (followThread || (boxes && (!was || was[2])))) {
      if (thread.lastElementChild && thread.lastElementChild.classList.contains("mine")) {
        followThread = false;
      }
      threadToEnd();
    }
    if (boxes === null) return;
    Object.keys(boxes).forEach(function (id) {
      var el = document.getElementById(id);
      if (!el || boxes[id][2] || (el === thread && followThread)) return;
      if (el.scrollTop !== boxes[id][0]) el.scrollTop = boxes[id][0];
      if (el.scrollLeft !== boxes[id][1]) el.scrollLeft = boxes[id][1];
    });
  }
  document.addEventListener("DOMContentLoaded", threadToEnd);
  document.addEventListener("submit", function (evt) {
    if (evt.target.classList && evt.target.classList.contains("message-form")) followThread = true;
  }, true);
  // And the page keeps the part the player clicked in (else the first part in view)
  // where it was on the screen, whatever the swap added above it.
  var pinned = null;
  function firstInView() {
    var parts = document.querySelectorAll("main [id]");
    for (var i = 0; i < parts.length; i++) {
      var r = parts[i].getBoundingClientRect();
      if (r.height > 0 && r.top >= 0) return parts[i];
    }
    return null;
  }
  // For a push, the field the player is typing in, if it is on the screen, comes first:
  // a message arriving above the reply being typed moved it 16 px down on a phone.
  function focusedInView() {
    var el = document.activeElement;
    var part = el && el !== document.body && el.closest ? el.closest("main [id]") : null;
    if (!part) return null;
    var r = part.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.top < window.innerHeight ? part : null;
  }
  function pin(el) {
    if (pinned !== null) return;
    var part = (el && el.closest && el.closest("main [id]")) || focusedInView() || firstInView();
    pinned = part ? { id: part.id, top: part.getBoundingClientRect().top } : false;
  }
  function keepPlace() {
    restoreBoxes();
    var part = pinned && document.getElementById(pinned.id);
    if (!part) return;
    var moved = part.getBoundingClientRect().top - pinned.top;
    if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
  }
  document.addEventListener("htmx:beforeSwap", function (evt) {
    rememberBoxes();
    pin(clickedIn(evt.detail));
  });
  document.addEventListener("htmx:oobBeforeSwap", function () {
    rememberBoxes();
    pin(null);
  });
  document.addEventListener("htmx:wsBeforeMessage", function () {
    rememberBoxes();
    pin(null);
  });
  ["htmx:afterSwap", "htmx:oobAfterSwap"].forEach(function (name) {
    document.addEventListener(name, keepPlace);
  });
  ["htmx:afterSettle", "htmx:wsAfterMessage"].forEach(function (name) {
    document.addEventListener(name, function () {
      keepPlace();
      boxes = null;
      pinned = null;
    });
  });

  // Every refusal is shown where the player clicked: the server answers a refused
  // action with a 4xx and a sentence; it goes into the message slot after the form
  // that was submitted, or after the button that submitted it from outside (a price
  // of the RG chart names its column's form), made on first use; the slot is
  // cleared on the next try.
  function formOf(elt) {
    return elt && elt.closest ? elt.closest("form") : null;
  }
  function clickedIn(detail) {
    var form = formOf(detail.elt);
    var cause = detail.requestConfig && detail.requestConfig.triggeringEvent;
    var button = cause && cause.submitter;
    if (form && button && button.form === form && !form.contains(button)) return button;
    return form || detail.elt;
  }
  // Where a click was made, kept with its request: a live push may re-draw the part
  // the form was in while the request is on its way.  The form (or the price
  // button) of the same action in the re-drawn part takes the sentence, else the
  // part itself; only a click whose part is gone leaves it to the page's message area.
  var TABLE_PARTS = /^(TR|TD|TH|TBODY|THEAD|TFOOT|TABLE)$/;
  function placeOf(anchor) {
    if (!anchor || !anchor.getAttribute) return null;
    var same = null;
    if (anchor.tagName === "FORM") {
      same = 'form[action="' + CSS.escape(anchor.getAttribute("action") || "") + '"]';
    } else if (anchor.getAttribute("form")) {
      same = '[form="' + CSS.escape(anchor.getAttribute("form")) + '"][value="' +
        CSS.escape(anchor.value || "") + '"]';
    }
    var parts = [];
    for (var up = anchor.parentElement; up; up = up.parentElement) {
      if (up.id && !TABLE_PARTS.test(up.tagName)) parts.push(up.id);
    }
    return { id: anchor.id || "", same: same, parts: parts };
  }
  function redrawn(place) {
    if (!place) return null;
    if (place.id && document.getElementById(place.id)) {
      return { anchor: document.getElementById(place.id) };
    }
    for (var i = 0; i < place.parts.length; i++) {
      var part = document.getElementById(place.parts[i]);
      if (!part) continue;
      var twins = place.same ? part.querySelectorAll(place.same) : [];
      return twins.length === 1 ? { anchor: twins[0] } : { part: part };
    }
    return null;
  }
  function slotAfter(anchor) {
    var slot = anchor.nextElementSibling;
    if (!slot || !slot.classList.contains("refusal")) {
      slot = document.createElement("div");
      slot.className = "refusal";
      slot.setAttribute("aria-live", "assertive");
      anchor.parentNode.insertBefore(slot, anchor.nextSibling);
    }
    return slot;
  }
  function slotIn(place) {
    var found = redrawn(place);
    if (found && found.anchor) return slotAfter(found.anchor);
    if (!found) return document.getElementById("flash");
    var last = found.part.lastElementChild;
    if (last && last.classList.contains("refusal")) return last;
    var end = document.createElement("div");
    end.className = "refusal";
    end.setAttribute("aria-live", "assertive");
    end.setAttribute("data-part-slot", "");
    found.part.appendChild(end);
    return end;
  }
  function slotFor(detail) {
    var anchor = clickedIn(detail);
    if (anchor && anchor.isConnected) return slotAfter(anchor);
    return slotIn(detail.xhr && detail.xhr.refitPlace);
  }
  function show(detail, html) {
    if (detail.xhr) detail.xhr.refitShown = true;
    var slot = slotFor(detail);
    if (slot) slot.innerHTML = html;
  }
  function answered(xhr) {
    if (xhr.status >= 400 && xhr.status < 500 && /class="error"/.test(xhr.responseText)) {
      return xhr.responseText;
    }
    return '<p class="error">The server failed to answer (' + xhr.status +
      "). Nothing was changed; try again in a moment.</p>";
  }
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var anchor = clickedIn(evt.detail);
    if (evt.detail.xhr) {
      evt.detail.xhr.refitPlace = placeOf(anchor);
      // After the load (or error) listeners htmx set, whose refusals come first.
      ["load", "error", "timeout", "abort"].forEach(function (name) {
        evt.detail.xhr.addEventListener(name, function (e) { setTimeout(unshown.bind(this, e), 0); });
      });
    }
    var slot = anchor && anchor.nextElementSibling;
    if (slot && slot.classList.contains("refusal")) slot.innerHTML = "";
    document.querySelectorAll(".refusal[data-part-slot]").forEach(function (el) { el.innerHTML = ""; });
    var form = formOf(evt.detail.elt);
    // What a submitted form holds is sent: the page's next re-draw may clear it.
    if (form) {
      form.querySelectorAll("[data-typed]").forEach(function (el) { el.removeAttribute("data-typed"); });
      form.querySelectorAll("input, textarea").forEach(function (el) {
        if (el.type === "checkbox" || el.type === "radio") el.defaultChecked = el.checked;
        else el.defaultValue = el.value;
      });
    }
  });
  // The answer to a form that a push re-drew while it was on its way: htmx would look
  // for the answer's parts under the old form, no longer in the page, and lose them
  // (its events no longer reach the document either): they go into the page itself.
  function intoThePage(evt) {
    var d = evt.detail;
    if (!d.shouldSwap || this.isConnected) return;
    d.shouldSwap = false;
    htmx.swap(document.body, d.serverResponse, { swapStyle: "none" });
  }
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = evt.detail.elt;
    if (elt) elt.addEventListener("htmx:beforeSwap", intoThePage, { once: true });
  });
  document.addEventListener("htmx:responseError", function (evt) {
    show(evt.detail, answered(evt.detail.xhr));
  });
  // htmx tells a refusal only to the form that was sent: where a push re-drew that
  // form meanwhile, the refusal would be told to nobody.  At the request's end, a
  // refusal not shown yet is shown where the click was made.
  var UNREACHED = '<p class="error">The server cannot be reached. Nothing was ' +
    "changed; check your connection and try again.</p>";
  function unshown(evt) {
    var xhr = this;
    if (xhr.refitShown || evt.type === "abort") {
      xhr.refitShown = true; // an abandoned request is no refusal
      return;
    }
    var failed = evt.type === "error" || evt.type === "timeout";
    if (!failed && xhr.status < 400) return;
    xhr.refitShown = true;
    var slot = slotIn(xhr.refitPlace);
    if (slot) slot.innerHTML = failed ? UNREACHED : answered(xhr);
  }
  document.addEventListener("htmx:sendError", function (evt) {
    show(evt.detail, UNREACHED);
  });

  // A live push never breaks an open form: what the player has typed, picked or
  // ticked in a part that a push re-draws is carried into the new part (matched by
  // id), and the focus and caret stay where they were.
  function isDirty(el) {
    if (el.hasAttribute("data-typed")) return true;
    if (el.type === "checkbox" || el.type === "radio") return el.checked !== el.defaultChecked;
    if (el.tagName === "SELECT") {
      return Array.prototype.some.call(el.options, function (o) { return o.selected !== o.defaultSelected; });
    }
    return el.value !== el.defaultValue;
  }
  document.addEventListener("click", function (evt) {
    var summary = evt.target.closest && evt.target.closest("summary");
    var fold = summary && summary.parentElement;
    if (fold && fold.tagName === "DETAILS" && fold.id) fold.setAttribute("data-toggled", "1");
  });
  document.addEventListener("htmx:oobBeforeSwap", function (evt) {
    var target = evt.detail.target;
    var fragment = evt.detail.fragment;
    if (!target || !fragment || !target.querySelectorAll) return;
    // A fold the player opened or closed stays as the player left it, and a push never
    // folds away what the player is reading (it may unfold what now needs him).
    target.querySelectorAll("details[id]").forEach(function (el) {
      var twin = fragment.querySelector("#" + CSS.escape(el.id));
      if (!twin) return;
      if (el.hasAttribute("data-toggled")) {
        twin.toggleAttribute("open", el.open);
        twin.setAttribute("data-toggled", "1");
      } else if (el.open) {
        twin.setAttribute("open", "");
      }
    });
    var focused = null;
    target.querySelectorAll("input[id], select[id], textarea[id]").forEach(function (el) {
      if (el.type === "hidden") return;
      var isFocused = el === document.activeElement;
      if (!isDirty(el) && !isFocused) return;
      var twin = fragment.querySelector("#" + CSS.escape(el.id));
      if (!twin) return;
      twin.setAttribute("data-typed", "1");
      if (el.type === "checkbox" || el.type === "radio") {
        twin.toggleAttribute("checked", el.checked);
      } else if (el.tagName === "SELECT") {
        Array.prototype.forEach.call(twin.options, function (o) {
          o.toggleAttribute("selected", o.value === el.value);
        });
      } else if (el.tagName === "TEXTAREA") {
        twin.textContent = el.value;
      } else {
        twin.setAttribute("value", el.value);
      }
      if (isFocused) {
        var caret = null;
        try { caret = [el.selectionStart, el.selectionEnd]; } catch (e) { caret = null; }
        focused = { id: el.id, caret: caret };
      }
    });
    if (focused) {
      setTimeout(function () {
        var el = document.getElementById(focused.id);
        if (!el) return;
        // Where the player scrolled away from the field, the page stays there: a
        // push never moves the page (the part in view was kept in place above).
        el.focus({ preventScroll: true });
        if (focused.caret && el.setSelectionRange) {
          try { el.setSelectionRange(focused.caret[0], focused.caret[1]); } catch (e) { /* not a text field */ }
        }
      }, 0);
    }
  });

  // A half-typed form survives a reload (playtest 16, item 9): what the player types
  // in a field is kept in the tab's session storage, by the page, the step the form
  // was made for (its "at": a draft of a step the campaign has left is never put
  // back) and the field's id, until the form is sent and the server takes it.  Only
  // the forms htmx sends: a page's own forms (sign in, host) go as the browser does.
  var DRAFT = "refit-draft|";
  function drafts() {
    try { return window.sessionStorage; } catch (e) { return null; }
  }
  function draftKey(el) {
    var form = el.form;
    if (!form || !el.id || el.disabled || !form.hasAttribute("hx-post")) return null;
    if (/^(hidden|password|checkbox|radio|file|submit|button)$/.test(el.type)) return null;
    var at = form.querySelector("input[name=at]");
    return DRAFT + location.pathname + "|" + (at ? at.value : "") + "|" + el.id;
  }
  function keepDraft(evt) {
    var el = evt.target;
    var store = drafts();
    var key = store && el && el.form ? draftKey(el) : null;
    if (!key) return;
    try {
      if (el.value === el.defaultValue) store.removeItem(key);
      else store.setItem(key, el.value);
    } catch (e) { /* storage full or refused: the draft is not kept */ }
  }
  document.addEventListener("input", keepDraft);
  document.addEventListener("change", keepDraft);
  document.addEventListener("htmx:afterRequest", function (evt) {
    var form = formOf(evt.detail.elt);
    var store = drafts();
    if (!form || !store || !evt.detail.successful) return;
    Array.prototype.forEach.call(form.elements, function (el) {
      var key = draftKey(el);
      if (key) store.removeItem(key);
    });
  });
  function restoreDrafts() {
    var store = drafts();
    if (!store) return;
    document.querySelectorAll("main input[id], main textarea[id], main select[id]").forEach(function (el) {
      var key = draftKey(el);
      var value = key ? store.getItem(key) : null;
      if (value === null || isDirty(el)) return;
      el.value = value;
      el.setAttribute("data-typed", "1");
    });
  }
  document.addEventListener("DOMContentLoaded", restoreDrafts);

  // A keyboard player keeps his place too: the button or link he pressed (disabled
  // while its action is on its way, which drops the focus to the page) or had reached
  // with Tab, once released or re-drawn by the answer or a push, has the focus back
  // (the same element, else the same id, else the same name in the same part); where
  // it is gone, its nearest part that is still there takes the focus, so the next Tab
  // goes on from there, not from the top of the page (playtest 16: after a Buy
  // pressed with Enter the focus fell to the page, 39 Tabs above the chart).  Fields
  // are kept by the push's own carry, above.
  var keyFocus = null;
  var pressed = null; // the control focused when its action was posted, and when
  function nameOf(el) {
    return ((el.getAttribute && el.getAttribute("aria-label")) || el.textContent || "").trim();
  }
  function focusInfo(el) {
    if (!el || el === document.body || !el.closest || !el.closest("main")) return null;
    // A control, or a part given the focus here (a push may re-draw it again).
    if (!/^(BUTTON|A|SUMMARY)$/.test(el.tagName) && !(el.id && el.hasAttribute("tabindex"))) return null;
    var parts = [];
    for (var up = el.parentElement; up && up.tagName !== "MAIN"; up = up.parentElement) {
      if (up.id) parts.push(up.id);
    }
    return { el: el, id: el.id, tag: el.tagName, name: nameOf(el), parts: parts, at: Date.now() };
  }
  function lostFocus() {
    var now = document.activeElement;
    return !now || now === document.body || !now.isConnected;
  }
  function rememberPressed() {
    pressed = focusInfo(document.activeElement);
  }
  function refocusPressed() {
    if (pressed && pressed.el.isConnected && !pressed.el.disabled && lostFocus()) {
      pressed.el.focus({ preventScroll: true });
    }
  }
  function rememberFocus() {
    if (keyFocus !== null) return;
    keyFocus = focusInfo(document.activeElement);
    if (!keyFocus && lostFocus() && pressed && Date.now() - pressed.at < 30000) keyFocus = pressed;
    keyFocus = keyFocus || false;
  }
  function refocus(was) {
    if (!lostFocus()) return true; // where it is, or it went somewhere on purpose
    var shown = function (el) { return el && !el.disabled && el.getClientRects().length > 0; };
    var found = shown(was.el) ? was.el : null;
    if (!found && was.id && shown(document.getElementById(was.id))) found = document.getElementById(was.id);
    for (var i = 0; !found && i < was.parts.length; i++) {
      var part = document.getElementById(was.parts[i]);
      if (!shown(part)) continue; // gone, or hidden now (a row no longer offered)
      var same = Array.prototype.filter.call(part.querySelectorAll(was.tag), function (c) {
        return nameOf(c) === was.name && shown(c);
      });
      found = same.length ? same[0] : part;
    }
    if (!found) return true;
    found.focus({ preventScroll: true });
    if (document.activeElement !== found) { // a part, not a control: made focusable
      found.setAttribute("tabindex", "-1");
      found.focus({ preventScroll: true });
    }
    return false;
  }
  function restoreFocus() {
    var was = keyFocus;
    keyFocus = null;
    if (!was) return;
    pressed = null;
    // Again a moment later: the swap's settling may still move a kept row (which
    // drops the focus again).
    [0, 60, 250].forEach(function (ms) { setTimeout(function () { refocus(was); }, ms); });
  }
  document.addEventListener("htmx:beforeSwap", rememberFocus);
  document.addEventListener("htmx:oobBeforeSwap", rememberFocus);
  document.addEventListener("htmx:wsBeforeMessage", rememberFocus);
  ["htmx:afterSettle", "htmx:wsAfterMessage"].forEach(function (name) {
    document.addEventListener(name, restoreFocus);
  });

  // "Your move" at a glance: while the campaign waits for this seat the page title
  // shows a badge, kept live from the header fragment (every push that changes whom
  // the campaign waits for re-draws it; its data-your-move says whether it is this
  // seat's move).  With the player's opt-in (per browser), a notification appears
  // when it becomes their move while the tab is in the background.
  var NOTIFY_KEY = "refit-notify";
  var wasMyMove = null;
  function notifyWanted() {
    try {
      return "Notification" in window && Notification.permission === "granted" &&
        window.localStorage.getItem(NOTIFY_KEY) === "1";
    } catch (e) { return false; }
  }
  function notifyMove(name, text) {
    if (!document.hidden || !notifyWanted()) return;
    try {
      var n = new Notification("Your move — " + name, { body: text || "", tag: "refit-" + location.pathname });
      n.onclick = function () { window.focus(); n.close(); };
    } catch (e) { /* a browser that only notifies from a service worker: the title still says it */ }
  }
  function syncMove() {
    var header = document.getElementById("campaign-header");
    if (!header || !header.dataset.yourMove) return;
    var mine = header.dataset.yourMove === "1";
    var name = header.dataset.campaignName || "";
    var title = (mine ? "(1) Your move — " : "") + name + " · Refit";
    if (document.title !== title) document.title = title;
    if (wasMyMove === false && mine) notifyMove(name, header.dataset.moveText);
    wasMyMove = mine;
  }
  ["htmx:oobAfterSwap", "htmx:afterSwap", "htmx:wsAfterMessage"].forEach(function (name) {
    document.addEventListener(name, syncMove);
  });

  // A message from the opponent while the tab is in the background: a browser
  // notification too (with the same opt-in), so a player away from the page hears of it.
  var theirs = null; // how many of the opponent's lines the thread showed
  // On the page, a message arriving out of sight (on a phone the messages are some
  // screens below the step) is counted on a button at the foot of the screen, which
  // leads to them; it goes once the messages are in sight.
  var unseen = 0;
  function messagesInSight() {
    var card = document.getElementById("campaign-messages");
    if (!card) return true;
    var r = card.getBoundingClientRect();
    return r.height > 0 && r.top < window.innerHeight && r.bottom > 0;
  }
  function showUnseen() {
    var pill = document.getElementById("new-messages");
    if (!pill) return;
    if (unseen && messagesInSight()) unseen = 0;
    var words = unseen === 1 ? "1 new message" : unseen + " new messages";
    if (unseen && pill.textContent !== words) pill.textContent = words;
    if (pill.hidden !== !unseen) pill.hidden = !unseen;
  }
  window.addEventListener("scroll", function () { if (unseen) showUnseen(); }, { passive: true });
  function syncMessages() {
    var lines = document.querySelectorAll("#campaign-messages li.theirs");
    if (theirs !== null && lines.length > theirs && !messagesInSight()) {
      unseen += lines.length - theirs;
    }
    showUnseen();
    if (theirs !== null && lines.length > theirs && document.hidden && notifyWanted()) {
      var last = lines[lines.length - 1];
      var header = document.getElementById("campaign-header");
      var name = header ? header.dataset.campaignName || "" : "";
      try {
        new Notification("Message — " + name, { body: last.innerText.trim().slice(0, 200), tag: "refit-msg-" + location.pathname });
      } catch (e) { /* only a service worker may notify here: the page shows it */ }
    }
    theirs = lines.length;
  }
  ["htmx:oobAfterSwap", "htmx:wsAfterMessage"].forEach(function (name) {
    document.addEventListener(name, syncMessages);
  });
  document.addEventListener("DOMContentLoaded", syncMessages);

  // The count of the opponent's messages not seen yet is kept with the seat and said
  // at the head of every page; once the messages are in sight on the campaign page,
  // the server is told they are seen (its socket then clears the count on each page).
  var seenSent = null; // the count section already reported
  function reportSeen() {
    var count = document.getElementById("unread-messages");
    if (!count || !count.dataset.seen || seenSent === count) return;
    if (!document.getElementById("campaign-messages") || !messagesInSight() || document.hidden) return;
    seenSent = count;
    // From the messages: the page keeps them where they are on the screen as the
    // count above them goes (the reply being typed does not move).
    var thread = document.getElementById("campaign-messages");
    htmx.ajax("POST", count.dataset.seen, { source: thread, swap: "none" });
  }
  window.addEventListener("scroll", reportSeen, { passive: true });
  document.addEventListener("visibilitychange", reportSeen);
  ["htmx:oobAfterSwap", "htmx:wsAfterMessage", "htmx:load"].forEach(function (name) {
    document.addEventListener(name, reportSeen);
  });
  document.addEventListener("DOMContentLoaded", reportSeen);

  // Phones show every table with a header as stacked cards: each cell carries its
  // column's name (data-label, read by the stylesheet), taken from the table's own
  // header rows (a column under a group header reads "British · Start").
  function columnNames(table) {
    var names = [];
    var taken = [];
    Array.prototype.forEach.call(table.querySelectorAll("thead tr"), function (tr, r) {
      var col = 0;
      Array.prototype.forEach.call(tr.children, function (th) {
        while (taken[r] && taken[r][col]) col++;
        var span = th.colSpan || 1;
        var rows = th.rowSpan || 1;
        var text = th.textContent.trim();
        for (var c = col; c < col + span; c++) {
          for (var k = r; k < r + rows; k++) { (taken[k] = taken[k] || [])[c] = true; }
          if (text) names[c] = names[c] ? names[c] + " · " + text : text;
        }
        col += span;
      });
    });
    return names;
  }
  function labelCells() {
    document.querySelectorAll("table").forEach(function (table) {
      if (!table.tHead) return;
      // Only what is missing is written: a push re-draws no part it did not change.
      if (!table.classList.contains("cards")) table.classList.add("cards");
      var names = columnNames(table);
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        var col = 0;
        Array.prototype.forEach.call(tr.children, function (cell) {
          // A cell across several columns ("None revealed.", a chart row's reason
          // it cannot be bought) is named by none of them: it read "CG date: None".
          if (names[col] && cell.colSpan <= 1 && !cell.hasAttribute("data-label")) {
            cell.setAttribute("data-label", names[col]);
          }
          col += cell.colSpan || 1;
        });
      });
    });
  }
  // An opponent's proposal that arrives live, awaiting this player's answer, moves
  // the rules data to supply to the top of the page, where a fresh page draws it, as
  // do the data still missing before the Initial Scenario; once neither holds (the
  // proposal answered, the start played: either part may be the one re-drawn), they
  // go back beside the step, before the log, and the step leads again.
  function leadWithAnswers() {
    var supplies = document.getElementById("campaign-supplies");
    var step = document.getElementById("campaign-step");
    var columns = document.querySelector(".campaign > .columns");
    if (!supplies || !columns) return;
    var lead = supplies.dataset.answer === "1" ||
      (supplies.dataset.first === "1" && (!step || step.dataset.start !== "0"));
    var inside = columns.contains(supplies);
    if (lead && inside) {
      columns.parentNode.insertBefore(supplies, columns);
    } else if (!lead && !inside) {
      var side = columns.querySelector(".side-col");
      if (side) side.insertBefore(supplies, side.querySelector("#campaign-log"));
    }
  }
  ["htmx:oobAfterSwap", "htmx:afterSwap", "htmx:wsAfterMessage"].forEach(function (name) {
    document.addEventListener(name, labelCells);
    document.addEventListener(name, leadWithAnswers);
  });
  document.addEventListener("DOMContentLoaded", labelCells);

  // The opt-in: Notification.requestPermission on a click, remembered in this browser.
  function syncOptin() {
    document.querySelectorAll("[data-notify-optin]").forEach(function (box) {
      var button = box.querySelector("button");
      var state = box.querySelector("[data-notify-state]");
      function say(text) { if (state) state.textContent = text; }
      if (!("Notification" in window)) {
        say("This browser cannot show notifications.");
        if (button) button.hidden = true;
        return;
      }
      box.hidden = false;
      if (Notification.permission === "denied") {
        say("This browser blocks notifications from Refit; allow them in its site settings first.");
        if (button) button.hidden = true;
        return;
      }
      var on = notifyWanted();
      say(on ? "Browser notifications are on." : "Browser notifications are off.");
      if (button) {
        button.hidden = false;
        button.textContent = on ? "Stop notifications in this browser" : "Notify me in this browser";
      }
    });
  }
  document.addEventListener("click", function (evt) {
    var button = evt.target.closest ? evt.target.closest("[data-notify-optin] button") : null;
    if (button) {
      if (notifyWanted()) {
        window.localStorage.removeItem(NOTIFY_KEY);
        syncOptin();
        return;
      }
      Notification.requestPermission().then(function (permission) {
        if (permission === "granted") window.localStorage.setItem(NOTIFY_KEY, "1");
        syncOptin();
      });
      return;
    }
    if (evt.target.closest && evt.target.closest("[data-print]")) window.print();
    // "Copy link" copies the field it names, and says whether it did: a page on a
    // plain-http address of the players' network has no clipboard API, and a browser
    // may refuse the copy; the link is then left selected, for the player to copy.
    var copy = evt.target.closest && evt.target.closest("[data-copy]");
    var field = copy && document.getElementById(copy.getAttribute("data-copy"));
    if (field) {
      var said = document.getElementById(copy.getAttribute("data-copied"));
      var tell = function (ok) {
        if (said) {
          said.textContent = ok ? "Copied." : "Your browser did not let the page copy it: " +
            "the link is selected, copy it.";
        }
      };
      var byCommand = function () {
        field.focus({ preventScroll: true });
        field.select();
        var ok = false;
        try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
        tell(ok);
      };
      field.select();
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(field.value).then(function () { tell(true); }, byCommand);
      } else {
        byCommand();
      }
    }
    // A link within the page (the in-page navigation, a row's chart-note letters)
    // opens the folds its target is in, and the target's own fold.
    var link = evt.target.closest && evt.target.closest("a[href^='#']");
    var target = link && link.getAttribute("href").length > 1
      ? document.getElementById(link.getAttribute("href").slice(1)) : null;
    if (target) {
      var own = target.tagName === "DETAILS" ? target : target.querySelector(":scope > details[id]");
      for (var up = target.parentElement; up; up = up.parentElement) {
        if (up.tagName === "DETAILS") up.open = true;
      }
      if (own) {
        own.open = true;
        own.setAttribute("data-toggled", "1");
      }
    }
  });
  document.addEventListener("DOMContentLoaded", function () {
    syncMove();
    syncOptin();
  });
})();
