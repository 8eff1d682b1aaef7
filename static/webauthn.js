// Passkeys (WebAuthn). A button with data-webauthn="register" or "login"
// and data-begin (the URL that starts the ceremony) asks the server for
// the options, runs the browser's ceremony, puts the result (JSON) in the
// form's "credential" field and sends the form. The server keeps the
// ceremony's challenge in the session and checks everything.
(function () {
  "use strict";

  function fromB64url(s) {
    var b64 = s.replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) b64 += "=";
    var bin = atob(b64);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }

  function toB64url(buf) {
    var bytes = new Uint8Array(buf);
    var bin = "";
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function decodeList(list) {
    (list || []).forEach(function (c) { c.id = fromB64url(c.id); });
  }

  function registrationJSON(cred) {
    var r = cred.response;
    return {
      id: cred.id,
      rawId: toB64url(cred.rawId),
      type: cred.type,
      authenticatorAttachment: cred.authenticatorAttachment || undefined,
      response: {
        clientDataJSON: toB64url(r.clientDataJSON),
        attestationObject: toB64url(r.attestationObject),
        transports: r.getTransports ? r.getTransports() : []
      },
      clientExtensionResults: cred.getClientExtensionResults()
    };
  }

  function assertionJSON(cred) {
    var r = cred.response;
    return {
      id: cred.id,
      rawId: toB64url(cred.rawId),
      type: cred.type,
      response: {
        clientDataJSON: toB64url(r.clientDataJSON),
        authenticatorData: toB64url(r.authenticatorData),
        signature: toB64url(r.signature),
        userHandle: r.userHandle ? toB64url(r.userHandle) : undefined
      },
      clientExtensionResults: cred.getClientExtensionResults()
    };
  }

  function say(form, msg) {
    var status = form.querySelector("[data-webauthn-status]");
    if (status) status.textContent = msg;
  }

  async function run(button) {
    var form = button.closest("form");
    if (!window.PublicKeyCredential) {
      say(form, "This browser cannot use passkeys. Use your authenticator app or a recovery code.");
      return;
    }
    button.disabled = true;
    say(form, "Waiting for your passkey…");
    try {
      var resp = await fetch(button.dataset.begin, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Accept": "application/json" }
      });
      var type = resp.headers.get("Content-Type") || "";
      if (type.indexOf("application/json") !== 0) {
        say(form, "The passkey check could not start. Reload the page and try again.");
        return;
      }
      var opts = await resp.json();
      if (!resp.ok) {
        say(form, opts.error || "The passkey check could not start.");
        return;
      }
      var pk = opts.publicKey;
      pk.challenge = fromB64url(pk.challenge);
      var result;
      if (button.dataset.webauthn === "register") {
        pk.user.id = fromB64url(pk.user.id);
        decodeList(pk.excludeCredentials);
        result = registrationJSON(await navigator.credentials.create({ publicKey: pk }));
      } else {
        decodeList(pk.allowCredentials);
        result = assertionJSON(await navigator.credentials.get({ publicKey: pk }));
      }
      form.querySelector('input[name="credential"]').value = JSON.stringify(result);
      form.submit();
    } catch (e) {
      say(form, "The passkey was not used (" + (e && e.name ? e.name : "error") + "). Try again, or use another way.");
    } finally {
      button.disabled = false;
    }
  }

  document.addEventListener("click", function (ev) {
    var button = ev.target.closest("button[data-webauthn]");
    if (!button) return;
    ev.preventDefault();
    run(button);
  });
})();
