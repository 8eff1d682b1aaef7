package browsertest

import (
	"testing"

	"partneradmin/web/webtest"
)

func TestMain(m *testing.M) { webtest.BrowserMain(m) }
