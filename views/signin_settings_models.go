package views

// SignInSettingsView is the owner's page of how staff sign in with the
// company's identity provider.
type SignInSettingsView struct {
	// ProviderName is the configured provider ("" when none is set up).
	ProviderName string
	// JITRole is the role new accounts get at first sign-in, "" for
	// invitation only.
	JITRole     string
	Roles       []Option
	AMR         bool
	PasswordOff bool
	// BreakGlass is the chosen owner's staff id ("" for none), among
	// Owners (active owners).
	BreakGlass string
	Owners     []Option
	Fields     FieldErrors
}
