// Package controlstest tests the money controls through the real router,
// a real database and the sandbox: the address book of trusted
// destinations, spending policies and their velocity limits, policy
// changes that need two owners, and the account's approval mode.
package controlstest
