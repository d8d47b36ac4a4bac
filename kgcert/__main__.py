from kgcert.cli import main

main()
