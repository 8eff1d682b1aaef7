// Command device stands in for the on-device SDK (DESIGN.md, Processes): it
// keeps owner keys in a local keystore file, opens a sign link (or decodes
// its QR code from an image), shows what will be signed, asks, signs and
// posts the signature back. A batch link covers many proposals: each is
// shown, the device asks once, signs each and posts them together. A
// wallet app's own link carrying the https link URL-encoded in a query
// parameter (partner-admin's SIGN_LINK_TEMPLATE) is taken too.
//
//	device keys list                     the keys in the keystore
//	device keys create [--label L]       a new owner key
//	device keys import <file>            merge another keystore (the sandbox demo keys)
//	device sign [--yes] [--wrong-prefix] <link>    a single or batch link, or an app link carrying one
//	device sign [--yes] --qr <png>
//
// The keystore is --keystore, or $DEVICE_KEYSTORE, or ./.data/device-keys.json
// (where partner-admin writes the demo company's keys).
//
// Exit codes, for scripts:
//
//	0 signed and accepted (or the command succeeded); for a batch, every item
//	(otherwise the worst of its items' codes below)
//	1 usage, file or network error
//	2 the link is unknown, expired, used or replaced (nothing was signed)
//	3 no key in the keystore for the request's owner address
//	4 declined at the confirmation prompt
//	5 the server refused the signature before relaying it (nothing sent upstream)
//	6 the wallet service refused the signature, or did not answer
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"partneradmin/apiclient/ethsig"
)

// Exit codes.
const (
	exitOK       = 0
	exitError    = 1
	exitGone     = 2
	exitNoKey    = 3
	exitDeclined = 4
	exitRefused  = 5
	exitUpstream = 6
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// env is one invocation's input and output.
type env struct {
	stdin          *bufio.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	e := &env{stdin: bufio.NewReader(stdin), stdout: stdout, stderr: stderr, getenv: getenv}
	if len(args) < 2 {
		e.usage()
		return exitError
	}
	switch args[1] {
	case "keys":
		return e.keys(args[2:])
	case "sign":
		return e.sign(ctx, args[2:])
	case "help", "-h", "--help":
		e.usage()
		return exitOK
	}
	fmt.Fprintf(stderr, "device: unknown command %q\n", args[1])
	e.usage()
	return exitError
}

func (e *env) usage() {
	fmt.Fprint(e.stderr, `usage:
  device keys list
  device keys create [--label L]
  device keys import <keystore file>
  device sign [--yes] [--wrong-prefix] <link>
  device sign [--yes] --qr <png file>
flags of every command: --keystore <file> (default $DEVICE_KEYSTORE or ./.data/device-keys.json)
`)
}

func (e *env) defaultKeystore() string {
	if p := e.getenv("DEVICE_KEYSTORE"); p != "" {
		return p
	}
	return ".data/device-keys.json"
}

// parse parses flags wherever they appear among the arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func (e *env) keys(args []string) int {
	if len(args) == 0 {
		e.usage()
		return exitError
	}
	fs := flag.NewFlagSet("device keys "+args[0], flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	path := fs.String("keystore", e.defaultKeystore(), "keystore file")
	label := fs.String("label", "", "label of the new key")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return exitError
	}
	ks, err := loadKeystore(*path)
	if err != nil {
		fmt.Fprintln(e.stderr, "device:", err)
		return exitError
	}
	switch args[0] {
	case "list":
		if len(ks.Keys) == 0 {
			fmt.Fprintf(e.stdout, "no keys in %s\n", *path)
		}
		for _, k := range ks.Keys {
			fmt.Fprintf(e.stdout, "%s  %s\n", k.Address, k.Label)
		}
		return exitOK
	case "create":
		k, err := ethsig.GenerateKey()
		if err != nil {
			fmt.Fprintln(e.stderr, "device:", err)
			return exitError
		}
		ks.add(k, *label)
		if err := ks.save(*path); err != nil {
			fmt.Fprintln(e.stderr, "device:", err)
			return exitError
		}
		fmt.Fprintf(e.stdout, "created %s\n", ethsig.KeyAddress(k).Hex())
		return exitOK
	case "import":
		if len(pos) != 1 {
			fmt.Fprintln(e.stderr, "device: keys import takes one keystore file (e.g. the sandbox's .data/device-keys.json)")
			return exitError
		}
		from, err := loadKeystore(pos[0])
		if err != nil {
			fmt.Fprintln(e.stderr, "device:", err)
			return exitError
		}
		added := 0
		for _, k := range from.Keys {
			key, err := ethsig.ParsePrivateKey(k.PrivateKey)
			if err != nil {
				fmt.Fprintln(e.stderr, "device:", err)
				return exitError
			}
			if ks.add(key, k.Label) {
				added++
			}
		}
		if err := ks.save(*path); err != nil {
			fmt.Fprintln(e.stderr, "device:", err)
			return exitError
		}
		fmt.Fprintf(e.stdout, "imported %d keys (%d already there) into %s\n", added, len(from.Keys)-added, *path)
		return exitOK
	}
	fmt.Fprintf(e.stderr, "device: unknown keys command %q\n", args[0])
	return exitError
}

// confirm asks a yes/no question on the terminal.
func (e *env) confirm(q string) bool {
	fmt.Fprint(e.stdout, q+" [y/N] ")
	line, err := e.stdin.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	line = strings.ToLower(strings.TrimSpace(line))
	return line == "y" || line == "yes"
}
