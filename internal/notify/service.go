package notify

import (
	"context"
	"time"

	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// DefaultLimit and MaxLimit bound how many notifications one listing returns.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

var errNotFound = fault.NotFoundf("Notification not found.")

// Notification is one workspace update as the web app shows it.
type Notification struct {
	ID        string     `json:"id"`
	Title     string     `json:"title"`
	Message   string     `json:"message"`
	Link      *string    `json:"link"`
	CreatedAt time.Time  `json:"createdAt"`
	ReadAt    *time.Time `json:"readAt"`
}

// List is a page of notifications, newest first, with the caller's total
// unread count (which may exceed the page).
type List struct {
	Items       []Notification `json:"items"`
	UnreadCount int            `json:"unreadCount"`
}

// Service reads notifications and records what users have read. It never
// writes notifications themselves: only the projection does.
type Service struct {
	db pgdb.Querier
}

// NewService returns a Service over db.
func NewService(db pgdb.Querier) *Service { return &Service{db: db} }

// Reader is who reads notifications: the workspace's notifications, with
// the person's own read marks (issue 51). An account alone in its own
// workspace has the same id for both.
type Reader struct {
	WorkspaceID string
	PersonID    string
}

// Alone is the Reader of an account in its own workspace.
func Alone(userID string) Reader { return Reader{WorkspaceID: userID, PersonID: userID} }

// List returns the caller's newest notifications (limit is clamped to
// 1..MaxLimit; 0 means DefaultLimit).
func (s *Service) List(ctx context.Context, userID Reader, limit int) (List, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	items, err := listNotes(ctx, s.db, userID, min(limit, MaxLimit))
	if err != nil {
		return List{}, err
	}
	unread, err := countUnread(ctx, s.db, userID)
	if err != nil {
		return List{}, err
	}
	return List{Items: items, UnreadCount: unread}, nil
}

// MarkRead marks one of the caller's notifications read (keeping the first
// read time when it already was) and returns it. Another user's id is
// reported exactly like a missing one.
func (s *Service) MarkRead(ctx context.Context, userID Reader, id string) (Notification, error) {
	if err := markRead(ctx, s.db, userID, id); err != nil {
		return Notification{}, err
	}
	n, ok, err := loadNote(ctx, s.db, userID, id)
	if err != nil {
		return Notification{}, err
	}
	if !ok {
		return Notification{}, errNotFound
	}
	return n, nil
}

// MarkAllRead marks every notification of the caller read, including those
// beyond the first page.
func (s *Service) MarkAllRead(ctx context.Context, userID Reader) error {
	return markAllRead(ctx, s.db, userID)
}
