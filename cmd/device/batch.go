package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"partneradmin/apiclient/ethsig"
)

// batchItem is one proposal of a batch link's GET answer.
type batchItem struct {
	ProposalID string    `json:"proposalId"`
	Hash       string    `json:"hash"`
	Summary    string    `json:"summary"`
	Amount     string    `json:"amount"`
	Currency   string    `json:"currency"`
	To         string    `json:"to"`
	Deadline   time.Time `json:"deadline"`
	State      string    `json:"state"` // "ready", or why not
	Error      string    `json:"error"`
}

// batchSignature is one signature of a batch's POST.
type batchSignature struct {
	ProposalID string `json:"proposalId"`
	Signature  string `json:"signature"`
}

// batchAnswer is the server's answer to a batch's POST.
type batchAnswer struct {
	Items []struct {
		ProposalID     string `json:"proposalId"`
		State          string `json:"state"`
		ProposalStatus string `json:"proposalStatus"`
		Relayed        bool   `json:"relayed"`
		Error          string `json:"error"`
	} `json:"items"`
	Error string `json:"error"`
}

// signBatchItems signs every ready item's hash raw with the owner's key
// (with the signed-message prefix when wrongPrefix, to see the server
// refuse it). Items that are not ready are left out.
func signBatchItems(key *secp256k1.PrivateKey, items []batchItem, wrongPrefix bool) ([]batchSignature, error) {
	var out []batchSignature
	for _, it := range items {
		if it.State != "ready" {
			continue
		}
		hash, err := ethsig.ParseHash(it.Hash)
		if err != nil {
			return nil, fmt.Errorf("the server sent a hash for %s that cannot be signed: %w", it.ProposalID, err)
		}
		sig := ethsig.Sign(key, hash)
		if wrongPrefix {
			sig = ethsig.SignMessage(key, hash[:])
		}
		out = append(out, batchSignature{ProposalID: it.ProposalID, Signature: sig.Hex()})
	}
	return out, nil
}

// signBatch shows every item of a batch, asks once, signs each ready item
// with the owner's key and posts them together.
func (e *env) signBatch(ctx context.Context, link string, req *signRequest, ks *Keystore, path string, yes, wrongPrefix bool) int {
	ready := 0
	fmt.Fprintf(e.stdout, "%d proposals to sign with one key\n", len(req.Items))
	for i, it := range req.Items {
		fmt.Fprintf(e.stdout, "%3d. %s\n", i+1, it.Summary)
		if it.State == "ready" {
			ready++
			fmt.Fprintf(e.stdout, "     deadline %s\n", it.Deadline.UTC().Format(time.RFC3339))
		} else {
			fmt.Fprintf(e.stdout, "     not signed (%s): %s\n", it.State, it.Error)
		}
	}
	fmt.Fprintf(e.stdout, "  signing key: %s\n", req.OwnerAddress)
	if ready == 0 {
		fmt.Fprintln(e.stderr, "device: nothing in this request can be signed now")
		return exitGone
	}
	key, ok := ks.find(req.OwnerAddress)
	if !ok {
		fmt.Fprintf(e.stderr, "device: no key for owner %s in %s\n", req.OwnerAddress, path)
		return exitNoKey
	}
	if !yes && !e.confirm(fmt.Sprintf("Sign these %d proposals?", ready)) {
		fmt.Fprintln(e.stderr, "device: declined, nothing signed")
		return exitDeclined
	}
	if wrongPrefix {
		fmt.Fprintln(e.stdout, "signing WITH the signed-message prefix (--wrong-prefix): the server should refuse this")
	}
	sigs, err := signBatchItems(key, req.Items, wrongPrefix)
	if err != nil {
		fmt.Fprintln(e.stderr, "device:", err)
		return exitError
	}
	ans, code := e.postBatch(ctx, link, sigs)
	if code != exitOK {
		return code
	}
	return e.reportBatch(ans)
}

// postBatch posts a batch's signatures once (never retried: a signature is
// not idempotent upstream).
func (e *env) postBatch(ctx context.Context, link string, sigs []batchSignature) (*batchAnswer, int) {
	body, err := json.Marshal(map[string]any{"signatures": sigs})
	if err != nil {
		fmt.Fprintln(e.stderr, "device:", err)
		return nil, exitError
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, link, bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(e.stderr, "device:", err)
		return nil, exitError
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	resp, err := httpClient.Do(hr)
	if err != nil {
		fmt.Fprintf(e.stderr, "device: the signatures may or may not have arrived (%v); check with the approver before signing again\n", err)
		return nil, exitUpstream
	}
	defer resp.Body.Close()
	var ans batchAnswer
	_ = json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&ans)
	switch resp.StatusCode {
	case http.StatusOK:
		return &ans, exitOK
	case http.StatusNotFound, http.StatusGone:
		fmt.Fprintf(e.stderr, "device: %s\n", ans.Error)
		return nil, exitGone
	}
	fmt.Fprintf(e.stderr, "device: the server answered %d: %s\n", resp.StatusCode, ans.Error)
	return nil, exitError
}

// reportBatch prints each item's outcome; the exit code is the worst one:
// 6 when the wallet service refused or did not answer, 5 when the server
// refused a signature before relaying it, 0 when every one went through.
func (e *env) reportBatch(ans *batchAnswer) int {
	code := exitOK
	for _, it := range ans.Items {
		switch {
		case it.State == "submitted" || it.State == "completed":
			fmt.Fprintf(e.stdout, "signed %s: %s (proposal %s)\n", it.ProposalID, it.State, it.ProposalStatus)
		case it.Relayed:
			fmt.Fprintf(e.stderr, "device: %s: the wallet service did not accept it (%s): %s\n", it.ProposalID, it.State, it.Error)
			code = exitUpstream
		default:
			fmt.Fprintf(e.stderr, "device: %s: refused, nothing was sent to the wallet service: %s\n", it.ProposalID, it.Error)
			if code == exitOK {
				code = exitRefused
			}
		}
	}
	return code
}
