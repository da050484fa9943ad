from django.apps import AppConfig


class DeweeConfig(AppConfig):
    name = "dewee"
    verbose_name = "Dewee"

    def ready(self) -> None:
        from django.core import checks

        from dewee.security import check_secure_deployment
        from dewee.serving import check_connection_budget

        checks.register(check_connection_budget)
        checks.register(check_secure_deployment, checks.Tags.security, deploy=True)
