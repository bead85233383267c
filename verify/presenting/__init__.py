"""Presenting results: figures (a claim's figure, the lecture and step figures), the HTML report
and its parts (panels, MathML, formatting), and the headless browser that screenshots it. May
import every room but command.
"""
