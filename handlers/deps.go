package handlers

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"partneradmin/apiclient"
	"partneradmin/store"
)

// Deps is what every area is built from: one set, passed to each area's
// constructor, and nothing set afterwards.
type Deps struct {
	*Base
	Store *store.Store
	// API is the Partner API (the real one or the sandbox); nil when the
	// app runs without one.
	API *apiclient.Client
	// Queue takes background jobs (river).
	Queue JobQueue
	// Clock is the one clock of the app.
	Clock  func() time.Time
	Logger *slog.Logger
	Config Config
	// Actions is the one path for state-changing upstream calls.
	Actions *Actions
}

// Config is the part of the app's configuration the areas read.
type Config struct {
	// PublicOrigin is the origin people and devices reach the app at
	// (sign links, the webhook receiver's URL).
	PublicOrigin string
	// ApprovalSyncConcurrency bounds the upstream calls of one approvals
	// sync (0: the area's default).
	ApprovalSyncConcurrency int
	// SignLinkTemplate is what a sign link's QR code carries
	// (sign.CheckLinkTemplate); "" is the link itself.
	SignLinkTemplate string
	// Sandbox: the API is the sandbox, so forms may list the test values
	// only it accepts.
	Sandbox bool
}

// JobQueue inserts background jobs; river's client is one.
type JobQueue interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	InsertTx(ctx context.Context, tx pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// Now is the app's clock.
func (d Deps) Now() time.Time { return d.Clock() }
