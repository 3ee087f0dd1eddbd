from diagnose.cli import cli

if __name__ == "__main__":
    cli(prog_name="diagnose")
