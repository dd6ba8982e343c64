# Students and instructors log in from the course's page in the learning platform (Canvas, Moodle, ...), over
# LTI 1.3 (jupyterhub-ltiauthenticator). Loaded as it is by The Littlest JupyterHub (deploy/tljh/install.sh
# copies it into jupyterhub_config.d/ when LTI13_CLIENT_ID is set) and by Zero to JupyterHub (the same text
# under hub.extraConfig in deploy/z2jh/values.yaml). The platform's values come from the hub's environment:
#
#   LTI13_ISSUER          the platform's issuer:      Canvas cloud: https://canvas.instructure.com
#                                                     Moodle: the site's address, https://moodle.example.edu
#   LTI13_CLIENT_ID       the tool's client id, given by the platform when the tool is registered
#                         (Canvas: the developer key's number; Moodle: the tool's "Client ID")
#   LTI13_AUTHORIZE_URL   Canvas: https://<canvas host>/api/lti/authorize_redirect
#                         Moodle: https://<moodle host>/mod/lti/auth.php
#   LTI13_JWKS_URL        Canvas: https://<canvas host>/api/lti/security/jwks
#                         Moodle: https://<moodle host>/mod/lti/certs.php
#   LTI13_USERNAME_KEY    the claim that names the hub user (default: "sub", the platform's stable opaque
#                         id; e.g. "custom_login" with a custom parameter login=$Canvas.user.loginId)
#
# Register the tool in the platform with: login initiation URL https://<hub>/hub/lti13/oauth_login, redirect
# URL https://<hub>/hub/lti13/oauth_callback (Canvas reads both from https://<hub>/hub/lti13/config).
import os

c.JupyterHub.authenticator_class = "ltiauthenticator.lti13.auth.LTI13Authenticator"
c.LTI13Authenticator.issuer = os.environ.get("LTI13_ISSUER", "")
c.LTI13Authenticator.client_id = [os.environ.get("LTI13_CLIENT_ID", "")]
c.LTI13Authenticator.authorize_url = os.environ.get("LTI13_AUTHORIZE_URL", "")
c.LTI13Authenticator.jwks_endpoint = os.environ.get("LTI13_JWKS_URL", "")
c.LTI13Authenticator.username_key = os.environ.get("LTI13_USERNAME_KEY", "sub")
c.LTI13Authenticator.tool_name = "simcore lab"
c.LTI13Authenticator.tool_description = "Re-run classic networking studies live"
# Whoever the platform launches is a member of the course: no further list of allowed users.
c.LTI13Authenticator.allow_all = True

LTI_ROLES = "https://purl.imsglobal.org/spec/lti/claim/roles"
TEACHING = ("#Instructor", "#Administrator", "#ContentDeveloper", "#TeachingAssistant")


def lti_instructors_are_admins(authenticator, handler, authentication: dict) -> dict:
    """Instructors and teaching assistants (their LTI membership roles) are hub admins: they see the class's
    servers and can stop or open a student's (a stuck kernel in class). Everyone else is a student."""
    roles = (authentication.get("auth_state") or {}).get(LTI_ROLES, [])
    authentication["admin"] = any(r.endswith(TEACHING) for r in roles)
    return authentication


c.LTI13Authenticator.post_auth_hook = lti_instructors_are_admins
