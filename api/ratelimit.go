package api

import (
	"context"
	"strconv"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// RateCounter counts a token's requests per window across every replica.
type RateCounter interface {
	Hit(ctx context.Context, tokenID string, start time.Time) (int, error)
}

// rateLimit allows each token perMinute requests per clock minute; past
// that, 429 with Retry-After until the next minute. It runs after
// authentication, so an unauthenticated flood never reaches the counter.
func rateLimit(counter RateCounter, perMinute int) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			now := time.Now().UTC()
			window := now.Truncate(time.Minute)
			hits, err := counter.Hit(c.Request().Context(), actor(c).Principal(), window)
			if err != nil {
				return err
			}
			if hits > perMinute {
				wait := int(window.Add(time.Minute).Sub(now).Seconds()) + 1
				c.Response().Header().Set("Retry-After", strconv.Itoa(wait))
				return auxilia.Errorf(auxilia.CodeRateLimited,
					"This token made more than %d requests this minute: retry in %d seconds.", perMinute, wait)
			}
			return next(c)
		}
	}
}
