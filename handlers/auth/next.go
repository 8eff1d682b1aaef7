package auth

import "partneradmin/handlers"

// safeNext keeps a post-login redirect on this site (handlers.SafeLocalPath).
func safeNext(next string) string { return handlers.SafeLocalPath(next) }
