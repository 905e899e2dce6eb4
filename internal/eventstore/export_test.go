package eventstore

import "github.com/jackc/pgx/v5/pgxpool"

// QueuedAppends is how many AppendCommitted calls on pool wait for a batch
// (tests use it to line appends up in one batch).
func (s *Store) QueuedAppends(pool *pgxpool.Pool) int {
	c := s.committerFor(pool)
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}
