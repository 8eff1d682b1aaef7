package web

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"partneradmin/views"
)

// staticFiles serves embedded files. Each URL carries ?v=<hash of content>,
// so files can be cached for a year and a change always changes the URL.
type staticFiles struct {
	fsys   fs.FS
	hashes map[string]string // file name → short content hash
}

func newStaticFiles(fsys fs.FS) (*staticFiles, error) {
	s := &staticFiles{fsys: fsys, hashes: map[string]string{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		s.hashes[p] = hex.EncodeToString(sum[:6])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: hash static files: %w", err)
	}
	return s, nil
}

// url returns the versioned URL of a static file.
func (s *staticFiles) url(name string) string {
	return "/static/" + name + "?v=" + s.hashes[name]
}

func (s *staticFiles) assets() views.Assets {
	return views.Assets{CSS: s.url("app.css"), JS: s.url("app.js"), Htmx: s.url("htmx.min.js"), WebAuthn: s.url("webauthn.js")}
}

func (s *staticFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/static/")
	hash, ok := s.hashes[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	b, err := fs.ReadFile(s.fsys, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	if r.URL.Query().Get("v") == hash {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.Header().Set("ETag", `"`+hash+`"`)
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	if r.Header.Get("If-None-Match") == `"`+hash+`"` {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(b)
}
