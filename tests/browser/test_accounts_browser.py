"""A real Chromium signs up, logs out and logs in against a live ASGI server."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_up_log_out_log_in(asgi_server, new_context):
    page = new_context().new_page()
    page.goto(asgi_server.url + "/")
    assert page.locator("h1").inner_text() == "Sign up"
    page.get_by_label("Username").fill("montgomery")
    page.locator("#id_password1").fill("desert-rats-1942")
    page.locator("#id_password2").fill("desert-rats-1942")
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url("**/campaigns/")
    assert page.locator("h1").inner_text() == "My campaigns"
    # The live socket opened with the session cookie: htmx swapped the status in.
    page.locator("#live-status.on").wait_for()

    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/login/")
    page.get_by_label("Username").fill("montgomery")
    page.locator("#id_password").fill("desert-rats-1942")
    page.keyboard.press("Enter")  # keyboard-usable form
    page.wait_for_url("**/campaigns/")
    assert "montgomery" in page.locator("header").inner_text()


@pytest.mark.presentation
def test_wrong_password_gets_a_clear_message(asgi_server, new_context, make_user):
    make_user("rommel")
    page = new_context().new_page()
    page.goto(asgi_server.url + "/login/")
    page.get_by_label("Username").fill("rommel")
    page.locator("#id_password").fill("wrong-password")
    page.get_by_role("button", name="Log in").click()
    assert "correct username and password" in page.locator("form").inner_text()
