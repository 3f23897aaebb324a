from hyblint.early import entry

if __name__ == "__main__":  # not when a spawned process (the language server's fixer) imports it
    entry()
