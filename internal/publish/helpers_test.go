package publish_test

import (
	"context"

	"github.com/photo3d/photo3d/internal/publish/publishtest"
)

func contextWithCancel(e *publishtest.Env) (context.Context, context.CancelFunc) {
	return context.WithCancel(e.Ctx)
}
