"""The tool server's OAuth 2.1 authorization server, on Authlib (issue 17).

Authlib runs the protocol: the authorization code grant with PKCE (S256 only, required of
every client), the refresh token grant (rotating), dynamic client registration (RFC 7591),
revocation (RFC 7009) and the ``iss`` authorization response parameter (RFC 9207). The
classes here only adapt it to our rows and rules (services/identity/oauth_clients.py,
services/identity/oauth_tokens.py) and add the resource indicator check (RFC 8707): a code or token
is only ever minted for this server's ``/mcp``.

This module is imported on the first request that needs the server (web/oauth/routes.py
``server()``), not when the app is created: Authlib and joserfc take about 0.1 s to import.
The helpers that need no Authlib live in web/oauth/common.py.
"""

from __future__ import annotations

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2 import OAuth2Error
from authlib.oauth2.rfc6749 import (
    AuthorizationCodeMixin,
    ClientMixin,
    InvalidGrantError,
    InvalidRequestError,
    InvalidScopeError,
    TokenMixin,
    grants,
)
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7591 import (
    ClientRegistrationEndpoint,
    InvalidClientMetadataError,
    InvalidRedirectURIError,
)
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc9207 import IssuerParameter
from flask import current_app
from flask import request as flask_request  # Authlib's methods take a `request` of theirs

from ci_service.errors import RateLimited
from ci_service.services.identity import oauth_clients, oauth_tokens
from ci_service.store.oauth import OAuthClient, OAuthCode, OAuthGrant, OAuthToken
from ci_service.web.oauth.common import CLIENT_AUTH_METHODS, issuer, safe_text


class InvalidTargetError(OAuth2Error):
    """RFC 8707 §2: the resource is not this server's tool server."""

    error = "invalid_target"


class RegistrationLimitedError(OAuth2Error):
    """Too many registrations from one address (issue 25): 429 with ``Retry-After``.
    RFC 7591 has no code for it; ``temporarily_unavailable`` is OAuth's registered one."""

    error = "temporarily_unavailable"
    status_code = 429

    def __init__(self, description: str, retry_after: str):
        super().__init__(safe_text(description))
        self.retry_after = retry_after

    def get_headers(self):
        return [*super().get_headers(), ("Retry-After", self.retry_after)]


def settings():
    return current_app.config["CI_SETTINGS"]


def check_resource(value, expected: str) -> None:
    """A ``resource`` parameter, when given, must name ``expected`` (one value only)."""
    values = flask_request.values.getlist("resource")
    if len(values) > 1:
        raise InvalidTargetError("Give at most one 'resource'")
    if value is not None and value.rstrip("/") != expected:
        raise InvalidTargetError(f"Tokens are only issued for the resource {expected}")


# -- adapters: our rows as Authlib's models ---------------------------------------------------


class Client(ClientMixin):
    def __init__(self, row: OAuthClient):
        self.row = row

    def get_client_id(self):
        return self.row.id

    def get_default_redirect_uri(self):
        uris = self.row.redirect_uris
        return uris[0] if len(uris) == 1 else None

    def get_allowed_scope(self, scope):
        """The scopes asked for (all the client's when none are named); None, an
        ``invalid_scope``, when one is unknown or beyond what the client registered."""
        wanted = oauth_clients.parse_scopes(scope)
        allowed = self.row.scope.split()
        if wanted is None or any(s not in allowed for s in wanted):
            return None
        chosen = wanted or allowed
        return " ".join(chosen) if chosen else None

    def check_redirect_uri(self, redirect_uri):
        return oauth_clients.redirect_matches(self.row.redirect_uris, redirect_uri)

    def check_client_secret(self, client_secret):
        return oauth_clients.secret_matches(self.row, client_secret)

    def check_endpoint_auth_method(self, method, endpoint):
        return method == self.row.token_endpoint_auth_method

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type in self.row.grant_types


class Code(AuthorizationCodeMixin):
    def __init__(self, row: OAuthCode):
        self.row = row
        self.code_challenge = row.code_challenge
        self.code_challenge_method = row.code_challenge_method

    def get_redirect_uri(self):
        return self.row.redirect_uri

    def get_scope(self):
        return " ".join(self.row.scopes)


class Token(TokenMixin):
    def __init__(self, row: OAuthToken, *, refresh: bool):
        self.row = row
        self.refresh = refresh

    def check_client(self, client):
        return self.row.grant.client_id == client.get_client_id()

    def get_scope(self):
        return " ".join(self.row.scopes)

    def get_expires_in(self):
        return int(oauth_tokens.ACCESS_LIFETIME.total_seconds())

    def is_expired(self):
        return False  # find_refresh_token returns live tokens only

    def is_revoked(self):
        return self.row.revoked_at is not None

    def get_user(self):
        return self.row.grant

    def get_client(self):
        return Client(self.row.grant.client)


# -- grants ---------------------------------------------------------------------------------


class RequireS256(CodeChallenge):
    """PKCE for every client, S256 only: a missing challenge or ``plain`` is refused."""

    DEFAULT_CODE_CHALLENGE_METHOD = "S256"
    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

    def validate_code_challenge(self, grant, redirect_uri):
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("PKCE is required: send a code_challenge (S256)")
        if data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("Only code_challenge_method=S256 is supported")
        super().validate_code_challenge(grant, redirect_uri)


class AuthorizationCodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = CLIENT_AUTH_METHODS

    @staticmethod
    def validate_authorization_redirect_uri(request, client):
        uri = request.payload.redirect_uri
        if uri:
            if not client.check_redirect_uri(uri):
                raise InvalidRequestError("The redirect_uri is not registered for this client")
            return uri
        uri = client.get_default_redirect_uri()
        if not uri:
            raise InvalidRequestError("Missing 'redirect_uri' in request.")
        return uri

    def generate_authorization_code(self):
        return oauth_tokens.new_secret(oauth_tokens.CODE_PREFIX)

    def save_authorization_code(self, code, request):
        grant: OAuthGrant = request.user
        data = request.payload.data
        oauth_tokens.save_code(
            code,
            grant,
            request.payload.redirect_uri or "",
            data["code_challenge"],
            data["code_challenge_method"],
        )

    def query_authorization_code(self, code, client):
        row = oauth_tokens.find_code(code, client.get_client_id())
        return Code(row) if row is not None else None

    def delete_authorization_code(self, authorization_code):
        oauth_tokens.use_code(authorization_code.row)

    def authenticate_user(self, authorization_code):
        return authorization_code.row.grant

    def validate_token_request(self):
        try:
            super().validate_token_request()
        except InvalidGrantError:
            found = getattr(self.request, "authorization_code", None)
            if found is not None:  # a wrong code_verifier uses the code up
                oauth_tokens.use_code(found.row)
            raise
        code = self.request.authorization_code.row
        check_resource(self.request.payload.data.get("resource"), code.resource)

    def save_token(self, token):
        code = self.request.authorization_code.row
        oauth_tokens.save_tokens(code.grant_id, token, list(code.scopes), code.resource)


class RefreshTokenGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = CLIENT_AUTH_METHODS
    INCLUDE_NEW_REFRESH_TOKEN = True

    def authenticate_refresh_token(self, refresh_token):
        row = oauth_tokens.find_refresh_token(
            refresh_token,
            self.request.client.get_client_id(),
            settings().oauth_refresh_grace_seconds,
        )
        return Token(row, refresh=True) if row is not None else None

    def authenticate_user(self, refresh_token):
        return refresh_token.row.grant

    def validate_token_request(self):
        super().validate_token_request()
        old = self.request.refresh_token.row
        check_resource(self.request.payload.data.get("resource"), old.resource)

    def save_token(self, token):
        old = self.request.refresh_token.row
        scopes = oauth_clients.parse_scopes(token.get("scope")) or list(old.scopes)
        new_id = oauth_tokens.save_tokens(old.grant_id, token, scopes, old.resource)
        oauth_tokens.rotate(old, new_id)  # a retry in the grace window: already rotated

    def revoke_old_credential(self, refresh_token):
        pass  # save_token rotated it, in the same transaction


# -- endpoints ------------------------------------------------------------------------------


class Revocation(RevocationEndpoint):
    """RFC 7009. An unknown token, another client's and one already revoked get the same
    answer as a revoked one: 200 and an empty body (§2.2), so the endpoint tells nobody
    whether a token exists. ``token_type_hint`` is only a hint (§2.1): the token's own
    prefix says what it is, so any hint, known or not, is ignored. A client that fails to
    authenticate still gets 401 ``invalid_client``."""

    CLIENT_AUTH_METHODS = CLIENT_AUTH_METHODS

    def check_params(self, request, client):
        if "token" not in request.form:
            raise InvalidRequestError("Missing 'token'")

    def authenticate_token(self, request, client):
        self.check_params(request, client)
        token = self.query_token(request.form["token"], None)
        if token is None or not token.check_client(client):
            return None
        return token

    def query_token(self, token_string, token_type_hint):
        row = oauth_tokens.find_token(token_string)
        if row is None:
            return None
        return Token(row, refresh=token_string.startswith(oauth_tokens.REFRESH_PREFIX))

    def revoke_token(self, token, request):
        # A refresh token stands for the whole connection (RFC 7009 §2.1): end it all.
        oauth_tokens.revoke_token(token.row, whole_grant=token.refresh)

    def create_endpoint_response(self, request):
        super().create_endpoint_response(request)
        return 200, "", [("Cache-Control", "no-store"), ("Pragma", "no-cache")]


class Registration(ClientRegistrationEndpoint):
    """Open registration (MCP clients register themselves); public or confidential."""

    def authenticate_token(self, request):
        return True

    def extract_client_metadata(self, request):
        try:
            metadata = oauth_clients.validate_metadata(request.payload.data)
        except oauth_clients.ClientMetadataError as exc:
            error = InvalidRedirectURIError if exc.error == "invalid_redirect_uri" else None
            raise (error or InvalidClientMetadataError)(safe_text(exc.description)) from None
        request.client_metadata = metadata
        return metadata

    def generate_client_info(self, request):
        config = settings()
        try:
            row, secret = oauth_clients.register_client(
                request.client_metadata,
                # The client's address: behind a trusted proxy, waitress puts it here.
                address=flask_request.remote_addr,
                per_hour=config.oauth_registrations_per_hour,
                unused_hours=config.oauth_unused_client_hours,
            )
        except RateLimited as exc:
            raise RegistrationLimitedError(exc.message, exc.headers["Retry-After"]) from None
        request.client_row = row
        return oauth_clients.registration_response(row, secret)

    def save_client(self, client_info, client_metadata, request):
        return request.client_row  # stored by register_client, secret hashed

    def get_server_metadata(self):
        return {}


class Issuer(IssuerParameter):
    def get_issuer(self):
        return issuer()


class Server(AuthorizationServer):
    def __init__(self):
        super().__init__(query_client=self._find_client, save_token=self._unused)
        self.register_token_generator("default", generate_tokens)
        self.register_grant(AuthorizationCodeGrant, [RequireS256(required=True)])
        self.register_grant(RefreshTokenGrant)
        self.register_endpoint(Revocation)
        self.register_endpoint(Registration)
        self.register_extension(Issuer())

    @staticmethod
    def _find_client(client_id):
        row = oauth_clients.find_client(client_id, settings().oauth_unused_client_hours)
        return Client(row) if row is not None else None

    @staticmethod
    def _unused(token, request):
        raise RuntimeError("the grants store their tokens themselves")

    def validate_requested_scope(self, scope):
        if oauth_clients.parse_scopes(scope) is None:
            raise InvalidScopeError(f"Scopes are {' and '.join(oauth_clients.SCOPES)}")


def generate_tokens(grant_type, client, user=None, scope=None, expires_in=None,
                    include_refresh_token=True):  # fmt: skip
    token = {
        "token_type": "Bearer",
        "access_token": oauth_tokens.new_secret(oauth_tokens.ACCESS_PREFIX),
        "expires_in": int(oauth_tokens.ACCESS_LIFETIME.total_seconds()),
    }
    if scope:
        token["scope"] = scope
    if include_refresh_token:
        token["refresh_token"] = oauth_tokens.new_secret(oauth_tokens.REFRESH_PREFIX)
    return token
