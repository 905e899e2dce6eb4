package events

import "time"

// Team events (issue 51): who belongs to a workspace, with which role, and
// the approvals that stand between an editor's Publish and the live page.
//
// A workspace owns the merchant data (products, jobs, publications,
// credits…). Every account has its own workspace, whose id is the account's
// id; it is implied by user.registered.v1, so nothing is appended for it.
// Members join by invitation: workspace-{id} holds the membership facts,
// approval-{id} one publish request and its decision. Addresses are never
// in these events: an invitation's address lives in team_invites (deleted
// with it), and members are named by user id.

// Roles a member can have in a workspace.
const (
	RoleOwner    = "owner"
	RoleEditor   = "editor"
	RoleReviewer = "reviewer"
	RoleAnalyst  = "analyst"
)

// StreamWorkspace and StreamApproval are the team aggregates' stream types.
const (
	StreamWorkspace = "workspace"
	StreamApproval  = "approval"
)

// TeamMemberInvited records an invitation (its address is in team_invites).
type TeamMemberInvited struct {
	InviteID    string    `json:"inviteId"`
	WorkspaceID string    `json:"workspaceId"`
	Role        string    `json:"role" erase:"keep"`
	ExpiresAt   time.Time `json:"expiresAt"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (TeamMemberInvited) EventType() string { return "team.member_invited.v1" }

// TeamInviteRevoked records that the owner took an invitation back.
type TeamInviteRevoked struct {
	InviteID    string    `json:"inviteId"`
	WorkspaceID string    `json:"workspaceId"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (TeamInviteRevoked) EventType() string { return "team.invite_revoked.v1" }

// TeamMemberJoined records that an invitation was accepted.
type TeamMemberJoined struct {
	WorkspaceID string    `json:"workspaceId"`
	UserID      string    `json:"userId"`
	InviteID    string    `json:"inviteId"`
	Role        string    `json:"role" erase:"keep"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (TeamMemberJoined) EventType() string { return "team.member_joined.v1" }

// TeamMemberRoleChanged records a member's new role.
type TeamMemberRoleChanged struct {
	WorkspaceID string    `json:"workspaceId"`
	UserID      string    `json:"userId"`
	Role        string    `json:"role" erase:"keep"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (TeamMemberRoleChanged) EventType() string { return "team.member_role_changed.v1" }

// Reasons a member leaves a workspace.
const (
	LeftRemoved          = "removed"           // the owner removed them
	LeftAccountDeleted   = "account_deleted"   // they deleted their account
	LeftWorkspaceDeleted = "workspace_deleted" // the owner deleted the workspace with their account
)

// TeamMemberRemoved records that a member left the workspace.
type TeamMemberRemoved struct {
	WorkspaceID string    `json:"workspaceId"`
	UserID      string    `json:"userId"`
	Reason      string    `json:"reason" erase:"keep"` // removed | account_deleted | workspace_deleted
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (TeamMemberRemoved) EventType() string { return "team.member_removed.v1" }

// TeamOwnershipTransferred records a new owner; the old owner becomes an
// editor.
type TeamOwnershipTransferred struct {
	WorkspaceID string    `json:"workspaceId"`
	FromUserID  string    `json:"fromUserId"`
	ToUserID    string    `json:"toUserId"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (TeamOwnershipTransferred) EventType() string { return "team.ownership_transferred.v1" }

// TeamSettingsChanged records the workspace's approval rule.
type TeamSettingsChanged struct {
	WorkspaceID     string    `json:"workspaceId"`
	RequireApproval bool      `json:"requireApproval"`
	At              time.Time `json:"at"`
}

// EventType implements Event.
func (TeamSettingsChanged) EventType() string { return "team.settings_changed.v1" }

// ApprovalRequested records an editor's Publish in a workspace that requires
// approval: the product at ProductVersion (its stream version), with the
// page settings asked for. NotifyUserIDs are the members who may decide
// (the owner and the reviewers at the time), so the notifications a replay
// writes are the ones written then.
type ApprovalRequested struct {
	ApprovalID     string    `json:"approvalId"`
	WorkspaceID    string    `json:"workspaceId"`
	ProductID      string    `json:"productId"`
	ProductVersion int64     `json:"productVersion"` // the product stream's version: a later product event withdraws the request
	PageVersion    int       `json:"pageVersion"`    // the page version shoppers will see once approved
	RequireEmail   bool      `json:"requireEmail"`
	AllowDeepLinks bool      `json:"allowDeepLinks"`
	RequestedBy    string    `json:"requestedBy" erase:"keep"` // the actor: user-{id} or apikey-{id}
	NotifyUserIDs  []string  `json:"notifyUserIds"`
	At             time.Time `json:"at"`
}

// EventType implements Event.
func (ApprovalRequested) EventType() string { return "approval.requested.v1" }

// ApprovalDecided records a reviewer's (or the owner's) decision. Approved
// requests were published at the requested version in the same
// transaction.
type ApprovalDecided struct {
	ApprovalID  string    `json:"approvalId"`
	WorkspaceID string    `json:"workspaceId"`
	ProductID   string    `json:"productId"`
	Approved    bool      `json:"approved"`
	Comment     string    `json:"comment" erase:"text"`
	DecidedBy   string    `json:"decidedBy" erase:"keep"` // the actor
	RequestedBy string    `json:"requestedBy" erase:"keep"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (ApprovalDecided) EventType() string { return "approval.decided.v1" }

// ApprovalWithdrawn records that a pending request no longer stands: the
// product changed after it was made (Reason "changed"), or it was deleted
// or its requester left ("cancelled").
type ApprovalWithdrawn struct {
	ApprovalID  string    `json:"approvalId"`
	WorkspaceID string    `json:"workspaceId"`
	ProductID   string    `json:"productId"`
	Reason      string    `json:"reason" erase:"keep"` // changed | cancelled
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (ApprovalWithdrawn) EventType() string { return "approval.withdrawn.v1" }

func teamEvents() []Event {
	return []Event{TeamMemberInvited{}, TeamInviteRevoked{}, TeamMemberJoined{}, TeamMemberRoleChanged{},
		TeamMemberRemoved{}, TeamOwnershipTransferred{}, TeamSettingsChanged{},
		ApprovalRequested{}, ApprovalDecided{}, ApprovalWithdrawn{}}
}
