"""Settings → Connected apps: MCP clients connected to the tool server with OAuth (issue 17).

The same service and rule as ``/api/connected-clients``: each person sees and disconnects
their own apps; an ADMIN or OWNER everyone's in the workspace.
"""

from __future__ import annotations

from flask import redirect, request, url_for

from ci_service.services.identity import oauth_tokens
from ci_service.services.identity.auth import role_at_least
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal
from ci_service.web.pages.settings_access import render
from ci_service.web.routes.oauth_connections import visible_connections


@bp.route("/settings/connections")
@page()
def settings_connections():
    who = principal()
    rows = [oauth_tokens.connection_to_dict(row) for row in visible_connections(who)]
    notice = "App disconnected." if request.args.get("done") == "revoked" else None
    return render(
        "settings_connections.html",
        connections=rows,
        everyone=role_at_least(who.role, "ADMIN"),
        errors=[],
        notice=notice,
    )


@bp.route("/settings/connections/<connection_id>/revoke", methods=["POST"])
@page()
def settings_connections_revoke(connection_id):
    oauth_tokens.revoke_connection(connection_id, principal())
    return redirect(url_for("pages.settings_connections", done="revoked"))
