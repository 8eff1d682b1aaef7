package railstest

import (
	"testing"

	"partneradmin/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
