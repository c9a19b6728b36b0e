def f(:
  pass
ÿş
