package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// bareFile lists the captured pages for the bare handler: each page's
// request URI, the file holding its bytes (beside the list) and its
// content type.
type bareFile struct {
	Pages []barePage `json:"pages"`
}

type barePage struct {
	URI         string `json:"uri"`
	File        string `json:"file"`
	ContentType string `json:"contentType"`
}

type bareBody struct {
	body  []byte
	ctype string
	size  string
}

// bareHandler answers each captured request URI with its bytes from
// memory: the least any server on this machine can do per request.
type bareHandler map[string]bareBody

func (h bareHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, ok := h[r.URL.RequestURI()]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", b.ctype)
	w.Header().Set("Content-Length", b.size)
	_, _ = w.Write(b.body)
}

// loadBare reads the page list and the pages' bytes.
func loadBare(listPath string) (bareHandler, error) {
	raw, err := os.ReadFile(listPath)
	if err != nil {
		return nil, fmt.Errorf("read page list: %w", err)
	}
	var list bareFile
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("page list %s: %w", listPath, err)
	}
	h := bareHandler{}
	for _, p := range list.Pages {
		body, err := os.ReadFile(filepath.Join(filepath.Dir(listPath), p.File))
		if err != nil {
			return nil, fmt.Errorf("page %s: %w", p.URI, err)
		}
		h[p.URI] = bareBody{body: body, ctype: p.ContentType, size: strconv.Itoa(len(body))}
	}
	return h, nil
}

// serveBare is the --bare-serve mode: it serves the pages on a loopback
// address, prints "listening on http://ADDR" and stops when ctx ends (the
// bench sends SIGTERM) or its parent dies (stdin closes).
func serveBare(ctx context.Context, listPath, addr string, stdout io.Writer) error {
	if listPath == "" {
		return errors.New("--bare-serve needs --pages")
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: want host:port", addr)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--addr %q: only a loopback address", addr)
	}
	h, err := loadBare(listPath)
	if err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 120 * time.Second}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// The bench holds our stdin open; EOF means it is gone.
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	go func() {
		<-ctx.Done()
		shut, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = srv.Shutdown(shut)
	}()
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
